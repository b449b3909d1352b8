package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth/authtest"
)

// benchBoard seeds an organization with one team of 250 items in progress (the board of make
// bench-orgboard) and returns the team, its items and a token of a member.
func benchBoard(b *testing.B) (team uuid.UUID, items []uuid.UUID, token string) {
	b.Helper()
	ctx := context.Background()
	owner, member := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	seeded, err := suite.app.SeedBench(ctx, owner, member, 1, 250)
	if err != nil {
		b.Fatal(err)
	}
	team = seeded.TeamIDs[0]
	rows, err := suite.pool.Query(ctx, "SELECT id FROM work_items WHERE team_id = $1 ORDER BY id", team)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		items = append(items, id)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return team, items, suite.issuer.Token(b, authtest.Subject(member), authtest.Tenant(uuid.New()))
}

// request makes one call through the served stack (authentication, validation, handler,
// encoding) and reads the whole response, as the load generator does.
func request(b *testing.B, method, url, token, body string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, rd)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: status %d", method, url, resp.StatusCode)
	}
}

// BenchmarkBoard is GET /api/orgboard/board of a team of 250 items, one request at a time
// (with -cpuprofile: where a board request's CPU goes, the client's share included).
func BenchmarkBoard(b *testing.B) {
	team, _, token := benchBoard(b)
	url := suite.base + "/api/orgboard/board?team_id=" + team.String()
	b.ReportAllocs()
	for b.Loop() {
		request(b, http.MethodGet, url, token, "")
	}
}

// BenchmarkMove is PATCH /api/orgboard/tasks/{id}/move of the items of a board in turn,
// between in progress and in review (the transaction with its audit entry and outbox event).
func BenchmarkMove(b *testing.B) {
	_, items, token := benchBoard(b)
	inReview := make([]bool, len(items))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := i % len(items)
		to := "in_review"
		if inReview[k] {
			to = "in_progress"
		}
		request(b, http.MethodPatch, suite.base+"/api/orgboard/tasks/"+items[k].String()+"/move", token, `{"status":"`+to+`"}`)
		inReview[k] = !inReview[k]
		i++
	}
}
