package store_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// ev builds a validated event of tenant at t with an optional correlation id.
func ev(t *testing.T, tenant uuid.UUID, at time.Time, correlation *uuid.UUID, p events.Payload) domain.Event {
	t.Helper()
	env, err := events.NewEvent(tenant, p)
	if err != nil {
		t.Fatal(err)
	}
	env.EventTime, env.CorrelationID = at, correlation
	body, _ := json.Marshal(env)
	e, err := busapi.ParseEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// admin is a caller who sees every tenant.
func admin() domain.Actor { return domain.Actor{TenantID: uuid.New(), Admin: true} }

func queuedJob(t *testing.T, tenant, job uuid.UUID, payment *uuid.UUID, price events.PriceType) domain.Event {
	return ev(t, tenant, t0, payment, events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
		PriorityQueue: events.PriorityQueuePaid, PriceType: price, Region: "eu"})
}

func TestAJobCountsOnceInUsageWhateverIsRedeliveredOrComesSecond(t *testing.T) {
	st, _ := newStore(t)
	in := app.NewIngest(st)
	ctx := context.Background()
	tenant, job := uuid.New(), uuid.New()
	completed := ev(t, tenant, t0.Add(time.Minute), nil, events.RenderJobCompletedV1Payload{RenderJobID: job, ExportID: uuid.New(),
		OutputURL: "s3://x", DurationSec: 12.5, SizeBytes: 1000, RenderComputeSeconds: ptr(40), PaidPriceMinor: ptr(int64(700))})
	failed := ev(t, tenant, t0.Add(2*time.Minute), nil, events.RenderJobFailedV1Payload{RenderJobID: job, FailedAtStep: events.StepVideo,
		ErrorMessage: "late", RefundRequired: true})
	for _, batch := range [][]domain.Event{{queuedJob(t, tenant, job, nil, events.PriceTypeCash), completed}, {completed}, {failed}, {completed, failed}} {
		if err := in.ApplyBatch(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := app.NewQueries(st).DailyUsage(context.Background(), admin(), &tenant, ptr(t0), ptr(t0))
	if err != nil || len(rows) != 1 {
		t.Fatalf("usage %v %v", rows, err)
	}
	u := rows[0].Usage
	if u.JobsCompleted != 1 || u.JobsFailed != 0 || u.RenderComputeSeconds != 40 || u.OutputSeconds != 12.5 ||
		u.OutputBytes != 1000 || u.PaidMinorByPriceType["Cash"] != 700 {
		t.Fatalf("usage %+v, want the completed job once, paid under Cash", u)
	}
}

func TestRefundsDueAreSettledByTheMatchingRefundInAnyOrder(t *testing.T) {
	st, _ := newStore(t)
	in := app.NewIngest(st)
	ctx := context.Background()
	tenant := uuid.New()
	paid, free, early, other := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	payment, earlyPayment := uuid.New(), uuid.New()
	fail := func(job uuid.UUID, payment *uuid.UUID, at time.Time) domain.Event {
		return ev(t, tenant, at, payment, events.RenderJobFailedV1Payload{RenderJobID: job, FailedAtStep: events.StepRendering,
			ErrorMessage: "boom", RefundRequired: true})
	}
	refund := func(paymentID uuid.UUID, correlation *uuid.UUID, amount int64, tn uuid.UUID) domain.Event {
		return ev(t, tn, t0.Add(time.Hour), correlation, events.IdentityPaymentRefundedV1Payload{PaymentID: paymentID,
			UserID: uuid.New(), RefundAmountMinor: amount, Reason: "failed"})
	}
	batches := [][]domain.Event{
		// The refund of the early job arrives before its failure.
		{refund(earlyPayment, nil, 300, tenant)},
		{queuedJob(t, tenant, paid, &payment, events.PriceTypeCash), fail(paid, &payment, t0.Add(time.Minute))},
		{queuedJob(t, tenant, free, nil, events.PriceTypeFree), fail(free, nil, t0.Add(2*time.Minute))},
		{queuedJob(t, tenant, early, &earlyPayment, events.PriceTypeCash), fail(early, &earlyPayment, t0.Add(3*time.Minute))},
		{queuedJob(t, tenant, other, nil, events.PriceTypePlan), fail(other, nil, t0.Add(4*time.Minute))},
		// The paid job by its payment id; the free job by correlation_id = job id; a refund
		// of another tenant with the same correlation settles nothing.
		{refund(payment, nil, 500, tenant), refund(uuid.New(), &free, 0, tenant), refund(uuid.New(), &other, 10, uuid.New())},
	}
	for _, b := range batches {
		if err := in.ApplyBatch(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	q := app.NewQueries(st)
	due, _, err := q.ListRefunds(context.Background(), admin(), app.ListParams{}, "due")
	if err != nil || len(due) != 1 || due[0].JobID != other {
		t.Fatalf("due = %+v (%v), want only the other-tenant-refunded job", due, err)
	}
	settled, _, err := q.ListRefunds(context.Background(), admin(), app.ListParams{}, "settled")
	if err != nil || len(settled) != 3 {
		t.Fatalf("settled = %+v (%v), want 3", settled, err)
	}
	amounts := map[uuid.UUID]int64{}
	for _, r := range settled {
		amounts[r.JobID] = *r.RefundAmountMinor
		if r.Step == nil || *r.Step != "Rendering" || r.SettledAt == nil {
			t.Errorf("refund %+v", r)
		}
	}
	if amounts[paid] != 500 || amounts[free] != 0 || amounts[early] != 300 {
		t.Errorf("refund amounts %v", amounts)
	}
}

// countingStore counts the writes of the progress writer on the real store.
type countingStore struct {
	*store.Store
	writes atomic.Int64
}

func (c *countingStore) SaveProgress(ctx context.Context, ticks []domain.Progress) ([]domain.Progress, error) {
	c.writes.Add(1)
	return c.Store.SaveProgress(ctx, ticks)
}

func TestProgressIsCoalescedAndTheLatestTickIsPersisted(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	tenant, job := uuid.New(), uuid.New()
	if err := app.NewIngest(st).ApplyBatch(ctx, []domain.Event{queuedJob(t, tenant, job, nil, events.PriceTypeFree)}); err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: st}
	w := app.NewProgressWriter(cs, 100*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	// 300 ticks in about 300ms, a stale one last.
	began := time.Now()
	for i := 1; i <= 300; i++ {
		w.Offer(domain.Progress{JobID: job, TenantID: tenant, Step: "Rendering", Progress: i / 3, EventTime: t0.Add(time.Duration(i) * time.Millisecond)})
		time.Sleep(time.Millisecond)
	}
	w.Offer(domain.Progress{JobID: job, TenantID: tenant, Step: "Preparing", Progress: 1, EventTime: t0})
	elapsed := time.Since(began)
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if limit := int64(elapsed/(100*time.Millisecond)) + 2; cs.writes.Load() > limit {
		t.Errorf("%d writes in %s, want at most %d (one per interval, plus the final flush)", cs.writes.Load(), elapsed, limit)
	}
	j, err := st.GetJob(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	if j.Progress != 100 || *j.Step != "Rendering" || !j.ProgressAt.Equal(t0.Add(300*time.Millisecond)) {
		t.Fatalf("persisted progress %d step %s at %v, want the latest tick (100, Rendering)", j.Progress, *j.Step, j.ProgressAt)
	}
}

func ptr[T any](v T) *T { return &v }
