package httpapi

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// workItemsOfEveryKind are items of one team: every text case (escapes, invalid UTF-8,
// unicode), every assignee kind, a parent, times with and without fractions and in a zone.
func workItemsOfEveryKind() (team uuid.UUID, items []domain.Task) {
	tricky := "quote \" backslash \\ tab \t nl \n ctl \x01 html <a&b> ü 日本 \u2028 bad \xff end"
	id := func() uuid.UUID { return uuid.New() }
	team, org, parent := id(), id(), id()
	whole := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	fine := time.Date(2026, 11, 24, 6, 0, 0, 123456000, time.UTC)
	items = []domain.Task{
		{ID: parent, OrganizationID: org, TeamID: team, Type: "epic", Title: tricky, Description: tricky,
			Status: domain.StatusBacklog, CreatedBy: id(), CreatedAt: whole, UpdatedAt: fine},
		{ID: id(), OrganizationID: org, TeamID: team, Type: "story", Title: "assigned to a user", Status: domain.StatusInProgress,
			Assignee: &domain.Assignee{Kind: domain.AssigneeUser, ID: id()}, ParentID: &parent, CreatedBy: id(),
			CreatedAt: fine, UpdatedAt: fine.Add(time.Nanosecond)},
		{ID: id(), OrganizationID: org, TeamID: team, Type: "task", Title: "assigned to a seat", Status: domain.StatusInReview,
			Assignee: &domain.Assignee{Kind: domain.AssigneeSeat, ID: id()}, CreatedAt: fine, UpdatedAt: whole},
		{ID: id(), OrganizationID: org, TeamID: team, Type: "bug", Status: domain.StatusDone,
			CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("east", 5*3600+1800)), UpdatedAt: whole},
	}
	return team, items
}

func TestBoardJSONMatchesTheGeneratedTypes(t *testing.T) {
	id := func() uuid.UUID { return uuid.New() }
	team, items := workItemsOfEveryKind()
	// A board of 500 items is larger than a streamed chunk, written in one piece; one of more
	// than bufferedBoardItems is streamed in several chunks.
	many := func(n int) []domain.Task {
		large := make([]domain.Task, n)
		for i := range large {
			large[i] = items[i%len(items)]
			large[i].ID = id()
			large[i].Title = fmt.Sprintf("%s %d", strings.Repeat("x", i%40), i)
		}
		return large
	}
	cases := map[string]domain.Board{
		"an empty board":                      domain.NewBoard(team, nil),
		"items of every kind in every column": domain.NewBoard(team, items),
		"a board larger than a chunk":         domain.NewBoard(team, many(500)),
		"a board streamed in chunks":          domain.NewBoard(team, many(bufferedBoardItems+1)),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			if err := (boardJSON{b}).VisitGetBoardResponse(got); err != nil {
				t.Fatal(err)
			}
			if err := orgboardserver.GetBoard200JSONResponse(boardOut(b)).VisitGetBoardResponse(want); err != nil {
				t.Fatal(err)
			}
			if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Errorf("status %d, %s; the generated response's: %d, %s", got.Code, got.Header().Get("Content-Type"),
					want.Code, want.Header().Get("Content-Type"))
			}
			// The generated response ends with the newline json.Encoder adds.
			if g, w := got.Body.String(), strings.TrimSuffix(want.Body.String(), "\n"); g != w {
				t.Errorf("hand-written JSON differs from the generated types':\n got %s\nwant %s", g, w)
			}
			n := got.Header().Get("Content-Length")
			if buffered := boardItems(b) <= bufferedBoardItems; buffered != (n != "") || buffered && n != strconv.Itoa(got.Body.Len()) {
				t.Errorf("Content-Length %q for %d bytes of %d items", n, got.Body.Len(), boardItems(b))
			}
		})
	}
}

// boardOut is the board through the generated types, the reference the hand-written encoder must
// match.
func boardOut(b domain.Board) orgboard.Board {
	out := orgboard.Board{TeamId: b.TeamID, Columns: make([]orgboard.BoardColumn, len(b.Columns))}
	for i, c := range b.Columns {
		out.Columns[i] = orgboard.BoardColumn{
			Status: orgboard.WorkItemStatus(c.Status),
			Title:  orgboard.BoardColumnTitle(domain.ColumnTitle(c.Status)),
			Items:  mapSlice(c.Items, workItemOut),
		}
	}
	return out
}

func TestAMovedTasksJSONMatchesTheGeneratedType(t *testing.T) {
	_, items := workItemsOfEveryKind()
	for i, task := range items {
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		if err := (movedTaskJSON{task}).VisitMoveTaskResponse(got); err != nil {
			t.Fatal(err)
		}
		if err := orgboardserver.MoveTask200JSONResponse(workItemOut(task)).VisitMoveTaskResponse(want); err != nil {
			t.Fatal(err)
		}
		if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Errorf("item %d: status %d, %s; the generated response's: %d, %s", i, got.Code, got.Header().Get("Content-Type"),
				want.Code, want.Header().Get("Content-Type"))
		}
		// The generated response ends with the newline json.Encoder adds.
		if g, w := got.Body.String(), strings.TrimSuffix(want.Body.String(), "\n"); g != w {
			t.Errorf("item %d: hand-written JSON differs from the generated type's:\n got %s\nwant %s", i, g, w)
		}
		if n := got.Header().Get("Content-Length"); n != strconv.Itoa(got.Body.Len()) {
			t.Errorf("item %d: Content-Length %q for %d bytes", i, n, got.Body.Len())
		}
	}
}
