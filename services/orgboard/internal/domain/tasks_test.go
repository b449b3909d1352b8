package domain_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func TestMovesFollowTheTransitionTable(t *testing.T) {
	const (
		B = domain.StatusBacklog
		P = domain.StatusInProgress
		R = domain.StatusInReview
		D = domain.StatusDone
	)
	// allowed[from][to]; the diagonal is an allowed no-op.
	allowed := map[domain.Status]map[domain.Status]bool{
		B: {B: true, P: true, R: false, D: false},
		P: {B: true, P: true, R: true, D: false},
		R: {B: false, P: true, R: true, D: true},
		D: {B: false, P: true, R: false, D: true},
	}
	for _, from := range domain.Columns {
		for _, to := range domain.Columns {
			changed, err := domain.CheckMove(from, to)
			if allowed[from][to] {
				if err != nil {
					t.Errorf("%s -> %s: refused (%v), want allowed", from, to, err)
				}
				if changed != (from != to) {
					t.Errorf("%s -> %s: changed=%v", from, to, changed)
				}
			} else if errs.KindOf(err) != errs.Conflict {
				t.Errorf("%s -> %s: got %v, want a Conflict", from, to, err)
			}
		}
	}
}

func TestTheBoardAlwaysHasTheFourColumnsInOrder(t *testing.T) {
	team := uuid.New()
	items := []domain.Task{
		{ID: uuid.New(), Status: domain.StatusDone},
		{ID: uuid.New(), Status: domain.StatusBacklog},
		{ID: uuid.New(), Status: domain.StatusDone},
	}
	b := domain.NewBoard(team, items)
	var got []string
	for _, c := range b.Columns {
		got = append(got, domain.ColumnTitle(c.Status))
	}
	want := []string{"backlog", "in progress", "in review", "done"}
	if len(got) != 4 {
		t.Fatalf("columns %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("columns %v, want %v", got, want)
		}
	}
	if len(b.Columns[0].Items) != 1 || len(b.Columns[2].Items) != 0 || len(b.Columns[3].Items) != 2 {
		t.Fatalf("items were not placed by status: %+v", b.Columns)
	}
	if b.Columns[3].Items[0].ID != items[0].ID {
		t.Fatal("items within a column lost their order")
	}
}

func TestAnIdentityWriteIsBoundedAndVersionChecked(t *testing.T) {
	big := make([]rune, domain.MaxIdentityChars+1)
	for i := range big {
		big[i] = 'é'
	}
	atLimit := string(big[:domain.MaxIdentityChars])
	one, two := int64(1), int64(2)
	cases := []struct {
		name    string
		content string
		base    *int64
		want    errs.Kind
	}{
		{"65536 multi-byte characters fit", atLimit, nil, errs.Internal},
		{"one character more is refused", string(big), nil, errs.Invalid},
		{"the current base version is accepted", "x", &two, errs.Internal},
		{"a stale base version conflicts", "x", &one, errs.Conflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := domain.CheckIdentity(c.content, c.base, 2)
			got := errs.Internal
			if err != nil {
				got = errs.KindOf(err)
			}
			if got != c.want {
				t.Fatalf("got %v (%v), want %v", got, err, c.want)
			}
		})
	}
}

func TestABoardHoldsEachColumnsItemsInTheirOrderWhetherCopiedOrArrangedInPlace(t *testing.T) {
	statuses := append(slices.Clone(domain.Columns), "archived")
	for n := range 60 {
		items := make([]domain.Task, n)
		for i := range items {
			items[i] = domain.Task{ID: uuid.New(), Status: statuses[(i*7+n)%len(statuses)]}
		}
		given := slices.Clone(items)
		for name, b := range map[string]domain.Board{
			"copied":   domain.NewBoard(uuid.Nil, items),
			"arranged": domain.ArrangeBoard(uuid.Nil, slices.Clone(items)),
		} {
			for c, s := range domain.Columns {
				col := b.Columns[c]
				var want []domain.Task
				for _, it := range given {
					if it.Status == s {
						want = append(want, it)
					}
				}
				if col.Status != s || col.Items == nil || len(col.Items) != len(want) || (len(want) > 0 && !reflect.DeepEqual(col.Items, want)) {
					t.Fatalf("%d items, %s: column %d is %s with %v; want %s with %v", n, name, c, col.Status, col.Items, s, want)
				}
				if cap(col.Items) != len(col.Items) {
					t.Fatalf("%d items, %s: column %s may grow into the next", n, name, s)
				}
			}
		}
		if !reflect.DeepEqual(items, given) {
			t.Fatalf("%d items: NewBoard changed its argument", n)
		}
	}
}
