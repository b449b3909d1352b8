// Package app holds the use cases of the render-events service: folding consumed events
// into the read models (Ingest), relaying live progress (Hub, ProgressWriter), the read
// API with its authorization (Queries, Webhooks) and the webhook dispatcher.
package app

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Consumer is the inbox name under which this service records the events it applied.
const Consumer = "renderevents"

// Ingest folds consumed events into the read models.
type Ingest struct {
	store domain.IngestStore
	// OnDeliveries is called after a commit that queued webhook deliveries (wakes the
	// dispatcher); may be nil.
	OnDeliveries func()
	now          func() time.Time
}

// NewIngest returns the ingest use case.
func NewIngest(store domain.IngestStore) *Ingest {
	return &Ingest{store: store, now: time.Now}
}

// ErrPoison marks an event that is valid on its own but cannot be applied (e.g. a job
// event of another tenant): no retry helps, it belongs in the dead-letter queue.
var ErrPoison = errors.New("event cannot be applied")

// ApplyBatch applies the events not applied yet in one transaction, in the given order.
func (in *Ingest) ApplyBatch(ctx context.Context, evs []domain.Event) error {
	queued := 0
	err := in.store.ApplyNew(ctx, Consumer, evs, func(ctx context.Context, tx domain.IngestTx, fresh []domain.Event) error {
		n, err := in.apply(ctx, tx, fresh)
		queued = n
		return err
	})
	if err == nil && queued > 0 && in.OnDeliveries != nil {
		in.OnDeliveries()
	}
	return err
}

// ApplyOne applies one event unless it was applied already (the fallback when a batch
// fails, so that one bad event is isolated).
func (in *Ingest) ApplyOne(ctx context.Context, ev domain.Event) error {
	queued := 0
	_, err := in.store.ApplyOnce(ctx, Consumer, ev, func(ctx context.Context, tx domain.IngestTx) error {
		n, err := in.apply(ctx, tx, []domain.Event{ev})
		queued = n
		return err
	})
	if err == nil && queued > 0 && in.OnDeliveries != nil {
		in.OnDeliveries()
	}
	return err
}

// apply folds fresh events and returns the number of webhook deliveries queued.
func (in *Ingest) apply(ctx context.Context, tx domain.IngestTx, fresh []domain.Event) (int, error) {
	now := in.now().UTC()
	var refs []domain.JobRef
	seen := map[uuid.UUID]bool{}
	for _, ev := range fresh {
		if id, ok := ev.JobID(); ok && ev.IsLifecycle() && !seen[id] {
			seen[id] = true
			refs = append(refs, domain.JobRef{JobID: id, TenantID: ev.TenantID, Time: ev.Time})
		}
	}
	jobs := map[uuid.UUID]*domain.Job{}
	if len(refs) > 0 {
		var err error
		if jobs, err = tx.LockJobs(ctx, refs); err != nil {
			return 0, err
		}
	}
	deltas := domain.UsageDeltas{}
	var (
		timeline []domain.TimelineEntry
		merges   []domain.Event
		changed  []uuid.UUID
		tenants  []uuid.UUID
	)
	for _, ev := range fresh {
		switch {
		case ev.IsLifecycle():
			id, _ := ev.JobID()
			job := jobs[id]
			out, err := job.Apply(ev)
			if err != nil {
				return 0, errors.Join(ErrPoison, err)
			}
			timeline = append(timeline, domain.TimelineEntry{JobID: id, EventID: ev.ID, EventType: ev.Type,
				EventTime: ev.Time, ReceivedAt: now, Applied: out.Applied, Data: ev.Data})
			if out.Applied {
				changed = append(changed, id)
			}
			if out.Terminal {
				deltas.CountTerminal(ev, job)
			}
		case ev.Type == events.RenderSnapshotRequestedV1, ev.Type == events.RenderSnapshotReadyV1:
			merges = append(merges, ev)
		case isIdentity(ev.Type):
			merges = append(merges, ev)
			deltas.CountPayment(ev)
		default:
			continue // not ours (e.g. content events bound by a broad key): no delivery either
		}
		if !slices.Contains(tenants, ev.TenantID) {
			tenants = append(tenants, ev.TenantID)
		}
	}
	if len(merges) > 0 {
		if err := tx.MergeReadModels(ctx, merges); err != nil {
			return 0, err
		}
	}
	if len(jobs) > 0 {
		list := make([]*domain.Job, 0, len(jobs))
		for _, j := range jobs {
			list = append(list, j)
		}
		slices.SortFunc(list, func(a, b *domain.Job) int { return compareUUID(a.ID, b.ID) })
		if err := tx.SaveJobs(ctx, list); err != nil {
			return 0, err
		}
	}
	if len(timeline) > 0 {
		if err := tx.AppendTimeline(ctx, timeline); err != nil {
			return 0, err
		}
	}
	if len(deltas) > 0 {
		if err := tx.AddUsage(ctx, deltas); err != nil {
			return 0, err
		}
	}
	n, err := in.queueDeliveries(ctx, tx, fresh, tenants, now)
	if err != nil {
		return 0, err
	}
	if len(changed) > 0 {
		if err := tx.NotifyJobsChanged(ctx, changed); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (in *Ingest) queueDeliveries(ctx context.Context, tx domain.IngestTx, fresh []domain.Event, tenants []uuid.UUID, now time.Time) (int, error) {
	if len(tenants) == 0 {
		return 0, nil
	}
	endpoints, err := tx.DeliverableEndpoints(ctx, tenants)
	if err != nil || len(endpoints) == 0 {
		return 0, err
	}
	var ds []domain.Delivery
	for _, ev := range fresh {
		if !ev.IsLifecycle() && !isIdentity(ev.Type) && ev.Type != events.RenderSnapshotRequestedV1 && ev.Type != events.RenderSnapshotReadyV1 {
			continue
		}
		for _, ep := range endpoints {
			if ep.TenantID != ev.TenantID || !domain.MatchesEventType(ep.EventTypes, ev.Type) {
				continue
			}
			id, err := uuid.NewV7()
			if err != nil {
				return 0, err
			}
			next := now
			ds = append(ds, domain.Delivery{ID: id, EndpointID: ep.ID, TenantID: ev.TenantID, EventID: ev.ID,
				EventType: ev.Type, Body: ev.Body, Status: domain.DeliveryPending, NextAttemptAt: &next, CreatedAt: now})
		}
	}
	if len(ds) == 0 {
		return 0, nil
	}
	return len(ds), tx.InsertDeliveries(ctx, ds)
}

func isIdentity(eventType string) bool {
	switch eventType {
	case events.IdentityUserRegisteredV1, events.IdentityUserEmailVerifiedV1, events.IdentityUserBannedV1,
		events.IdentityTenantCreatedV1, events.IdentityTenantSuspendedV1, events.IdentityPlanActivatedV1,
		events.IdentityPlanExpiredV1, events.IdentityPaymentSucceededV1, events.IdentityPaymentFailedV1,
		events.IdentityPaymentRefundedV1, events.IdentityApiKeyCreatedV1, events.IdentityApiKeyRevokedV1:
		return true
	}
	return false
}

func compareUUID(a, b uuid.UUID) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}
