package store_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/store"
	"github.com/videotpl/platform/services/orgboard/migrations"
)

func TestReadBoardReadsWhatTheGeneratedQueriesRead(t *testing.T) {
	pool, url := pgtest.NewDB(t, migrations.Sets()...)
	s := store.New(pool)
	exec := func(sql string, args ...any) error {
		_, err := pool.Exec(context.Background(), sql, args...)
		return err
	}
	ctx := context.Background()
	must := func(sql string, args ...any) {
		t.Helper()
		if err := exec(sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	org, team, other, member, outsider, seat := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	tenant := uuid.New()
	must(`INSERT INTO organizations (id, name, created_by, created_at) VALUES ($1, 'Acme', $2, now())`, org, member)
	must(`INSERT INTO memberships (organization_id, user_id, role, joined_at) VALUES ($1, $2, 'Member', now())`, org, member)
	must(`INSERT INTO teams (id, organization_id, name, created_at) VALUES ($1, $2, 'Board', now()), ($3, $2, 'Empty', now())`,
		team, org, other)
	must(`INSERT INTO team_leads (team_id, organization_id, user_id, assigned_at) VALUES ($1, $2, $3, now())`, team, org, member)
	must(`INSERT INTO seats (id, organization_id, team_id, title, state, created_at) VALUES ($1, $2, $3, 'Open seat', 'open', now())`,
		seat, org, team)
	must(`INSERT INTO user_bans (user_id, banned_by, reason, unblock_date, event_time, event_id) VALUES ($1, $2, 'spam ü', '2030-01-02T03:04:05.123456Z', '2026-01-01T00:00:00Z', $3)`,
		member, uuid.New(), uuid.New())
	must(`INSERT INTO tenant_suspensions (tenant_id, reason, suspended_at, event_time, event_id) VALUES ($1, 'unpaid', '2026-02-03T04:05:06Z', '2026-02-03T04:05:06Z', $2)`,
		tenant, uuid.New())

	// Texts of every kind (empty, escapes, unicode, long), the three assignee cases, a parent, and
	// times before and after PostgreSQL's epoch, to the microsecond.
	tricky := "quote \" backslash \\ tab \t nl \n ctl \x01 html <a&b> ü 日本 \u2028 end"
	long := string([]rune(strings.Repeat("long text 长文本 ", 5000))[:65536])
	parent := uuid.New()
	items := []struct {
		id                   uuid.UUID
		typ, title, desc, st string
		user, seat, parent   *uuid.UUID
		created, updated     string
	}{
		{parent, "epic", "the parent", "", "backlog", nil, nil, nil, "1999-12-31T23:59:59.999999Z", "2000-01-01T00:00:00Z"},
		{uuid.New(), "story", tricky, tricky, "in_progress", &member, nil, &parent, "1970-01-01T00:00:00.000001Z", "2026-11-24T06:00:00.123456Z"},
		{uuid.New(), "task", "ü", long, "in_review", nil, &seat, &parent, "2026-11-24T06:00:00.5Z", "2026-11-24T06:00:01Z"},
		{uuid.New(), "bug", "x", "d", "done", nil, nil, nil, "1901-05-06T07:08:09.010203+05:30", "2262-01-01T00:00:00Z"},
		{uuid.New(), "task", "same time", "", "in_progress", nil, nil, nil, "2026-11-24T06:00:00.5Z", "2026-11-24T06:00:00.5Z"},
	}
	for _, it := range items {
		must(`INSERT INTO work_items (id, organization_id, team_id, type, title, description, status, assignee_user_id,
			assignee_seat_id, parent_id, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			it.id, org, team, it.typ, it.title, it.desc, it.st, it.user, it.seat, it.parent, member, it.created, it.updated)
	}

	want, err := s.ListBoardItems(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	wantBlocks, err := s.CallerBlocks(ctx, member, tenant)
	if err != nil {
		t.Fatal(err)
	}
	wantTeam, wantStanding, err := s.GetTeamWithStanding(ctx, team, member)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(items) || len(wantBlocks) != 2 || !wantStanding.TeamLead {
		t.Fatalf("the seed reads back as %d items, %d blocks, %+v", len(want), len(wantBlocks), wantStanding)
	}

	t.Run("a member's board with the blocks", func(t *testing.T) {
		got, err := s.ReadBoard(ctx, domain.BoardQuery{Team: team, User: member, Tenant: tenant, Blocks: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.TeamErr != nil || !reflect.DeepEqual(got.Team, wantTeam) || got.Standing != wantStanding {
			t.Errorf("team %+v %+v (%v); want %+v %+v", got.Team, got.Standing, got.TeamErr, wantTeam, wantStanding)
		}
		if !reflect.DeepEqual(got.Blocks, wantBlocks) {
			t.Errorf("blocks %+v; want %+v", got.Blocks, wantBlocks)
		}
		if !reflect.DeepEqual(got.Items, want) {
			for i := range min(len(got.Items), len(want)) {
				if !reflect.DeepEqual(got.Items[i], want[i]) {
					t.Errorf("item %d:\n got %+v\nwant %+v", i, got.Items[i], want[i])
				}
			}
			t.Fatalf("%d items; want %d", len(got.Items), len(want))
		}
		for i := range want {
			if !got.Items[i].CreatedAt.Equal(want[i].CreatedAt) || got.Items[i].CreatedAt.Location() != want[i].CreatedAt.Location() {
				t.Errorf("item %d created at %v; want %v", i, got.Items[i].CreatedAt, want[i].CreatedAt)
			}
		}
	})
	t.Run("boards read after earlier ones were released", func(t *testing.T) {
		for round := range 4 {
			got, err := s.ReadBoard(ctx, domain.BoardQuery{Team: team, User: member})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Items, want) {
				t.Fatalf("round %d: the items differ from the generated query's", round)
			}
			empty, err := s.ReadBoard(ctx, domain.BoardQuery{Team: other, User: member})
			if err != nil {
				t.Fatal(err)
			}
			if len(empty.Items) != 0 {
				t.Fatalf("round %d: the empty board has %d items", round, len(empty.Items))
			}
			got.Release()
			got.Release() // a second release hands nothing back twice
			empty.Release()
		}
	})
	t.Run("an outsider, without the blocks, on an empty board", func(t *testing.T) {
		got, err := s.ReadBoard(ctx, domain.BoardQuery{Team: other, User: outsider})
		if err != nil {
			t.Fatal(err)
		}
		if got.TeamErr != nil || got.Team.ID != other || got.Standing != (domain.Standing{}) || len(got.Items) != 0 || got.Blocks != nil {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("a missing team is TeamErr, with the blocks still read", func(t *testing.T) {
		missing := uuid.New()
		got, err := s.ReadBoard(ctx, domain.BoardQuery{Team: missing, User: member, Tenant: tenant, Blocks: true})
		if err != nil {
			t.Fatal(err)
		}
		_, _, wantErr := s.GetTeamWithStanding(ctx, missing, member)
		if errs.KindOf(got.TeamErr) != errs.NotFound || got.TeamErr.Error() != wantErr.Error() || len(got.Blocks) != 2 {
			t.Errorf("team error %v (want %v), %d blocks", got.TeamErr, wantErr, len(got.Blocks))
		}
	})
	t.Run("on a connection that reads every value as text", func(t *testing.T) {
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		textPool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer textPool.Close()
		got, err := store.New(textPool).ReadBoard(ctx, domain.BoardQuery{Team: team, User: member})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != len(want) {
			t.Fatalf("%d items; want %d", len(got.Items), len(want))
		}
		for i, w := range want {
			g := got.Items[i]
			if !g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) {
				t.Errorf("item %d: times %v, %v; want %v, %v", i, g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt)
			}
			g.CreatedAt, g.UpdatedAt = w.CreatedAt, w.UpdatedAt
			if !reflect.DeepEqual(g, w) {
				t.Errorf("item %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	})
	t.Run("a task locked for a change, with the blocks, as its transaction's first read", func(t *testing.T) {
		id := items[1].id
		wantTask, err := s.GetTask(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		err = s.InTx(ctx, func(tx domain.Store) error {
			got, err := tx.LockTask(ctx, domain.TaskLockQuery{ID: id, User: member, Tenant: tenant, Blocks: true})
			if err != nil {
				return err
			}
			if got.TaskErr != nil || !reflect.DeepEqual(got.Task, wantTask) || got.Standing != wantStanding ||
				!reflect.DeepEqual(got.Blocks, wantBlocks) {
				t.Errorf("got %+v; want task %+v, standing %+v, blocks %+v", got, wantTask, wantStanding, wantBlocks)
			}
			// The task stays locked until the transaction ends.
			err = exec(`SELECT 1 FROM work_items WHERE id = $1 FOR UPDATE NOWAIT`, id)
			if !strings.Contains(fmt.Sprint(err), "could not obtain lock") {
				t.Errorf("locking the task from another connection: %v; want it refused while the transaction holds it", err)
			}
			// Without the blocks, an outsider: the task, no standing, no blocks; a missing task is
			// TaskErr, with the blocks still read.
			outside, err := tx.LockTask(ctx, domain.TaskLockQuery{ID: id, User: outsider})
			if err != nil || outside.Task.ID != id || outside.Standing != (domain.Standing{}) || outside.Blocks != nil {
				t.Errorf("an outsider's lock: %+v, %v", outside, err)
			}
			missing, err := tx.LockTask(ctx, domain.TaskLockQuery{ID: uuid.New(), User: member, Tenant: tenant, Blocks: true})
			if err != nil || errs.KindOf(missing.TaskErr) != errs.NotFound || len(missing.Blocks) != 2 {
				t.Errorf("a missing task's lock: task error %v (want not found), %d blocks, %v", missing.TaskErr, len(missing.Blocks), err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := exec(`SELECT 1 FROM work_items WHERE id = $1 FOR UPDATE NOWAIT`, id); err != nil {
			t.Errorf("the task is still locked after the transaction: %v", err)
		}
	})
	t.Run("inside a transaction", func(t *testing.T) {
		err := s.InTx(ctx, func(tx domain.Store) error {
			got, err := tx.ReadBoard(ctx, domain.BoardQuery{Team: team, User: member})
			if err == nil && !reflect.DeepEqual(got.Items, want) {
				t.Errorf("items read in a transaction differ")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
