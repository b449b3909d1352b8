package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
	"github.com/videotpl/platform/services/renderevents/migrations"
)

func newStore(t *testing.T) (*store.Store, *pgxpool.Pool) { return newStoreB(t) }

func newStoreB(t testing.TB) (*store.Store, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.NewDB(t, bus.Migrations(), pgxdb.Migrations{Name: "renderevents", FS: migrations.FS})
	return store.New(pool, seal.Ephemeral()), pool
}

func parse(t *testing.T, msgs []sim.Message) []domain.Event { return parseB(t, msgs) }

func parseB(t testing.TB, msgs []sim.Message) []domain.Event {
	t.Helper()
	var out []domain.Event
	for _, m := range msgs {
		if m.Exchange != sim.Events {
			continue
		}
		ev, err := busapi.ParseEvent(m.Body)
		if err != nil {
			t.Fatalf("parse %s: %v", m.EventType, err)
		}
		out = append(out, ev)
	}
	return out
}

func TestABatchIsAppliedOnceEvenWhenDeliveredAgain(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	stream, err := sim.Generate(sim.Options{Tenants: 2, Jobs: 6, Snapshots: 2, ProgressTicks: 3, FailRate: 0.34, CancelRate: 0.34, Identity: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	evs := parse(t, stream.Messages)
	in := app.NewIngest(st)
	for range 2 {
		if err := in.ApplyBatch(ctx, evs); err != nil {
			t.Fatalf("apply: %v", err)
		}
	}
	var jobs, timeline int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM render_jobs WHERE state_rank > 0").Scan(&jobs)
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM render_job_events").Scan(&timeline)
	inbox, err := bus.HandledCount(ctx, pool, app.Consumer)
	if err != nil {
		t.Fatal(err)
	}
	if jobs != 6 || inbox != len(evs) {
		t.Fatalf("jobs=%d inbox=%d, want 6 and %d", jobs, inbox, len(evs))
	}
	var completed, usageCompleted int64
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM render_jobs WHERE state = 'completed'").Scan(&completed)
	_ = pool.QueryRow(ctx, "SELECT coalesce(sum(jobs_completed),0) FROM usage_periods WHERE period = 'day'").Scan(&usageCompleted)
	if completed != usageCompleted || completed == 0 {
		t.Fatalf("completed jobs %d, usage counts %d", completed, usageCompleted)
	}
	t.Logf("jobs=%d timeline=%d inbox=%d completed=%d", jobs, timeline, inbox, completed)
}
