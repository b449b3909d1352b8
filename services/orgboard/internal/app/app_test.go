package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/store"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/store/modelgw"
	"github.com/videotpl/platform/services/orgboard/migrations"
)

func newApp(t *testing.T) (*app.App, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Sets()...)
	policy, err := egress.ParseAllowList("")
	if err != nil {
		t.Fatal(err)
	}
	transport := policy.Transport()
	t.Cleanup(transport.CloseIdleConnections)
	a := app.New(app.Deps{
		Store:           store.New(pool),
		Sealer:          seal.Ephemeral(),
		Models:          modelgw.New(&http.Client{Transport: transport}, 10*time.Second),
		Tools:           mcp.New(transport, "orgboard-test", "0"),
		URLs:            store.URLs(policy),
		Limits:          app.Limits{ToolCall: 10 * time.Second, ToolTest: 10 * time.Second, Discovery: 10 * time.Second},
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
		Clock:           time.Now,
		DefaultTenantID: uuid.MustParse("00000000-0000-0000-0000-000000000001"),
	})
	return a, pool
}

func TestAChangeWhoseAuditEntryCannotBeWrittenIsRolledBack(t *testing.T) {
	a, pool := newApp(t)
	ctx := context.Background()
	owner := domain.UserActor(uuid.New())
	org, err := a.CreateOrganization(ctx, owner, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	team, err := a.CreateTeam(ctx, owner, org.ID, "T", nil)
	if err != nil {
		t.Fatal(err)
	}
	item, err := a.CreateTask(ctx, owner, app.TaskInput{TeamID: team.ID, Type: "task", Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	// From now on the audit log refuses task.moved entries.
	if _, err := pool.Exec(ctx, "ALTER TABLE audit_entries ADD CONSTRAINT no_moves CHECK (action <> 'task.moved') NOT VALID"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.MoveTask(ctx, owner, item.ID, domain.StatusInProgress); err == nil {
		t.Fatal("the move succeeded without its audit entry")
	}
	got, err := a.GetTask(ctx, owner, item.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.StatusBacklog {
		t.Fatalf("the move was kept without its audit entry: status %s", got.Status)
	}
}

func TestTheDemoSeedIsIdempotent(t *testing.T) {
	a, _ := newApp(t)
	ctx := context.Background()
	first, err := a.SeedDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.SeedDemo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || second.Created || first.OrganizationID != second.OrganizationID || len(second.TeamIDs) != 3 {
		t.Fatalf("first %+v second %+v", first, second)
	}
	board, err := a.Board(ctx, domain.UserActor(app.DemoMember), first.TeamIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range board.Columns {
		if len(col.Items) == 0 {
			t.Errorf("the demo board's %s column is empty", col.Status)
		}
	}
	cart, err := a.Cartable(ctx, domain.UserActor(app.DemoMember), nil, false)
	if err != nil || len(cart) != 2 {
		t.Fatalf("the demo member's cartable: %d items, %v", len(cart), err)
	}
}

func TestTheBenchSeedSpreadsTheItemsOverTheTeams(t *testing.T) {
	a, _ := newApp(t)
	ctx := context.Background()
	owner, member := uuid.New(), uuid.New()
	res, err := a.SeedBench(ctx, owner, member, 4, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TeamIDs) != 4 {
		t.Fatalf("teams %d", len(res.TeamIDs))
	}
	for _, team := range res.TeamIDs {
		b, err := a.Board(ctx, domain.UserActor(member), team)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(b.Columns[1].Items); n != 25 {
			t.Fatalf("team has %d items in progress, want 25", n)
		}
	}
	if _, err := a.SeedBench(ctx, owner, member, 0, 1); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("zero teams: %v", err)
	}
}
