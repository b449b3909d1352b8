package store_test

import (
	"cmp"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
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

// event encodes p as a message of tenant and reads it back as the consumer does.
func event(t *testing.T, tenant uuid.UUID, p events.Payload) domain.Event {
	t.Helper()
	env, err := events.NewEvent(tenant, p)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := busapi.ParseEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// A batch's writes go to the database together, before its next read: a read made while
// applying the batch still sees what the events before it changed.
func TestATenantSuspendedEarlierInTheSameBatchGetsNoDeliveries(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	suspended, active := uuid.New(), uuid.New()
	for _, tenant := range []uuid.UUID{suspended, active} {
		if _, err := pool.Exec(ctx, `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, created_at, updated_at)
			VALUES ($1, $2, 'https://hooks.example.com/render', '{render.*}', '\x01', now(), now())`, uuid.New(), tenant); err != nil {
			t.Fatal(err)
		}
	}
	queued := func(tenant uuid.UUID) domain.Event {
		return event(t, tenant, events.RenderJobQueuedV1Payload{RenderJobID: uuid.New(), SavedProjectID: uuid.New(),
			PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"})
	}
	batch := []domain.Event{
		event(t, suspended, events.IdentityTenantSuspendedV1Payload{TenantID: suspended, Reason: "unpaid invoices"}),
		queued(suspended),
		queued(active),
	}
	if err := app.NewIngest(st).ApplyBatch(ctx, batch); err != nil {
		t.Fatalf("apply: %v", err)
	}
	var toSuspended, toActive int
	_ = pool.QueryRow(ctx, "SELECT count(*) FILTER (WHERE tenant_id = $1), count(*) FILTER (WHERE tenant_id = $2) FROM webhook_deliveries",
		suspended, active).Scan(&toSuspended, &toActive)
	if toSuspended != 0 || toActive != 1 {
		t.Fatalf("deliveries: %d to the suspended tenant, %d to the active one; want 0 and 1", toSuspended, toActive)
	}
}

// A write refused by the database after being deferred fails the whole batch: nothing of
// it is kept, not even the writes made before it.
func TestABatchWhoseDeferredWriteIsRefusedLeavesNothingBehind(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	if _, err := pool.Exec(ctx, "ALTER TABLE snapshots ADD CONSTRAINT refuse_new_snapshots CHECK (false) NOT VALID"); err != nil {
		t.Fatal(err)
	}
	tenant := uuid.New()
	batch := []domain.Event{
		event(t, tenant, events.RenderJobQueuedV1Payload{RenderJobID: uuid.New(), SavedProjectID: uuid.New(),
			PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"}),
		event(t, tenant, events.RenderSnapshotRequestedV1Payload{SnapshotID: uuid.New(), SavedProjectID: uuid.New(),
			SceneKey: "intro", FrameNumber: 12}),
	}
	if err := app.NewIngest(st).ApplyBatch(ctx, batch); err == nil {
		t.Fatal("the batch was applied although its snapshot was refused")
	}
	var jobs, timeline int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM render_jobs").Scan(&jobs)
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM render_job_events").Scan(&timeline)
	handled, err := bus.HandledCount(ctx, pool, app.Consumer)
	if err != nil {
		t.Fatal(err)
	}
	if jobs != 0 || timeline != 0 || handled != 0 {
		t.Fatalf("after the failed batch: %d jobs, %d timeline entries, %d inbox records; want none", jobs, timeline, handled)
	}
}

func TestConcurrentBatchesCreatingTheSameJobsAllCommitAndTheJobsHoldEveryEvent(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	in := app.NewIngest(st)
	tenant := uuid.New()
	jobs := make([]uuid.UUID, 5)
	for i := range jobs {
		jobs[i] = uuid.New()
	}
	// Every client's batch is the first to see each job: one queues them, the others start
	// them or complete them, so whichever inserts a job first, the others must find it.
	batches := make([][]domain.Event, 20)
	for c := range batches {
		for _, job := range jobs {
			var p events.Payload = events.RenderJobStartedV1Payload{RenderJobID: job, StartedAt: t0.Add(time.Minute)}
			switch c {
			case 0:
				p = events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
					PriorityQueue: events.PriorityQueuePaid, PriceType: events.PriceTypeCash, Region: "eu"}
			case 19:
				p = events.RenderJobCompletedV1Payload{RenderJobID: job, ExportID: uuid.New(), OutputURL: "s3://out.mp4", DurationSec: 3, SizeBytes: 9}
			}
			batches[c] = append(batches[c], ev(t, tenant, t0.Add(time.Duration(c)*time.Second), nil, p))
		}
	}
	warm(t, pool)
	for c, err := range race(func(c int) error { return in.ApplyBatch(ctx, batches[c]) }) {
		if err != nil {
			t.Errorf("client %d: %v", c, err)
		}
	}
	for _, job := range jobs {
		var state string
		var timeline int
		err := pool.QueryRow(ctx, `SELECT state, (SELECT count(*) FROM render_job_events e WHERE e.job_id = j.job_id)
			FROM render_jobs j WHERE job_id = $1`, job).Scan(&state, &timeline)
		if err != nil || state != "completed" || timeline != 20 {
			t.Errorf("job %s: %q with %d timeline events (%v), want completed with all 20", job, state, timeline, err)
		}
	}
}

// A batch writes its jobs in one statement, whether it inserts or updates them: every column,
// NULL or not, must read back as the events set it, and as when each event is applied alone
// (one job written at a time) or the events come in a few batches.
func TestJobsWrittenTogetherReadBackAsTheirEventsSetThemAndAsOneEventAtATime(t *testing.T) {
	ctx := context.Background()
	stream, err := sim.Generate(sim.Options{Tenants: 3, Jobs: 60, Running: 10, Snapshots: 2, FailRate: 0.3,
		CancelRate: 0.3, Identity: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	optional, want := jobsWithOptionalFieldsSetOrNot(t)
	evs := append(parse(t, stream.Messages), optional...)
	readModels := func(batches ...[]domain.Event) []string {
		st, pool := newStore(t)
		in := app.NewIngest(st)
		for _, b := range batches {
			if err := in.ApplyBatch(ctx, b); err != nil {
				t.Fatalf("apply: %v", err)
			}
		}
		rows, err := pool.Query(ctx, `SELECT to_jsonb(j)::text FROM render_jobs j
			UNION ALL SELECT to_jsonb(u)::text FROM usage_periods u ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	once := readModels(evs)
	for _, r := range once {
		var row map[string]any
		if err := json.Unmarshal([]byte(r), &row); err != nil {
			t.Fatal(err)
		}
		id, _ := row["job_id"].(string)
		for column, set := range want[uuid.MustParse(cmp.Or(id, uuid.Nil.String()))] {
			if (row[column] != nil) != set {
				t.Errorf("job %s: %s = %v, want it set: %t", id, column, row[column], set)
			}
		}
	}
	var thirds, alone [][]domain.Event
	for i := range 3 {
		thirds = append(thirds, evs[i*len(evs)/3:(i+1)*len(evs)/3])
	}
	for _, e := range evs {
		alone = append(alone, []domain.Event{e})
	}
	for name, batches := range map[string][][]domain.Event{"in thirds": thirds, "one at a time": alone} {
		got := readModels(batches...)
		if len(got) != len(once) {
			t.Fatalf("%s: %d rows, in one batch: %d", name, len(got), len(once))
		}
		for i := range got {
			if got[i] != once[i] {
				t.Errorf("%s:\n got %s\nwant %s", name, got[i], once[i])
			}
		}
	}
}

// jobsWithOptionalFieldsSetOrNot are the events of jobs whose optional fields are each set or
// not independently of the others (job k sets field f when bit f of k is set), and which of
// their columns must then be set.
func jobsWithOptionalFieldsSetOrNot(t *testing.T) ([]domain.Event, map[uuid.UUID]map[string]bool) {
	tenant := uuid.New()
	var out []domain.Event
	want := map[uuid.UUID]map[string]bool{}
	for k := range 64 {
		set := func(f int) bool { return k>>f&1 == 1 }
		opt := func(f int, v int) *int {
			if set(f) {
				return &v
			}
			return nil
		}
		job, at := uuid.New(), t0.Add(time.Duration(k)*time.Second)
		queued := events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
			PriorityQueue: events.PriorityQueuePaid, PriceType: events.PriceTypeCash, Region: "eu", PriorityScore: opt(0, 7)}
		if set(1) {
			queued.DurationSec, queued.Resolution = new(float64), new(string)
		}
		started := events.RenderJobStartedV1Payload{RenderJobID: job, StartedAt: at.Add(time.Second), TotalFrames: opt(2, 90)}
		if set(3) {
			started.NodeIDs = []uuid.UUID{uuid.New()}
		}
		out = append(out, ev(t, tenant, at, nil, queued), ev(t, tenant, at.Add(time.Second), nil, started))
		completed, failed := k%4 != 3 && k%3 != 1, k%4 != 3 && k%3 == 1 // the others stay started
		want[job] = map[string]bool{"priority_score": set(0), "duration_sec": set(1) || completed, "resolution": set(1),
			"total_frames": set(2), "export_id": completed, "width": completed && set(4), "height": completed && set(5),
			"render_compute_seconds": completed && set(1), "failed_at_step": failed, "retry_count": failed && set(4),
			"error_code": false, "finished_at": completed || failed}
		switch {
		case completed:
			out = append(out, ev(t, tenant, at.Add(2*time.Second), nil, events.RenderJobCompletedV1Payload{RenderJobID: job,
				ExportID: uuid.New(), OutputURL: "s3://out.mp4", DurationSec: 3, SizeBytes: 9, Width: opt(4, 640),
				Height: opt(5, 360), RenderComputeSeconds: opt(1, 5)}))
		case failed:
			out = append(out, ev(t, tenant, at.Add(2*time.Second), nil, events.RenderJobFailedV1Payload{RenderJobID: job,
				FailedAtStep: events.StepRendering, ErrorMessage: "lost", RetryCount: opt(4, 2), RefundRequired: set(5)}))
		}
	}
	return out, want
}
