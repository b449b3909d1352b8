package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// JobRef names a job an ingest transaction will touch, with the tenant and time of its
// first event in the batch (for a job not known yet).
type JobRef struct {
	JobID    uuid.UUID
	TenantID uuid.UUID
	Time     time.Time
}

// EndpointFilter is an enabled endpoint of a tenant that is not suspended.
type EndpointFilter struct {
	ID         uuid.UUID
	TenantID   uuid.UUID
	EventTypes []string
}

// IngestTx is what folding events needs from the store, inside one transaction.
type IngestTx interface {
	// LockJobs returns the jobs, locked for the transaction (in job_id order); a job not
	// known yet comes back empty (NewJob), and SaveJobs stores it: of two transactions
	// storing the same new job, the second fails and is run again.
	LockJobs(ctx context.Context, refs []JobRef) (map[uuid.UUID]*Job, error)
	SaveJobs(ctx context.Context, jobs []*Job) error
	AppendTimeline(ctx context.Context, entries []TimelineEntry) error
	AddUsage(ctx context.Context, deltas UsageDeltas) error
	// MergeReadModels merges snapshot and identity events into their read models. The
	// merges are commutative, so the store applies them in the order of the rows they lock,
	// the same in every transaction: concurrent consumers cannot deadlock on them.
	MergeReadModels(ctx context.Context, evs []Event) error
	DeliverableEndpoints(ctx context.Context, tenants []uuid.UUID) ([]EndpointFilter, error)
	InsertDeliveries(ctx context.Context, ds []Delivery) error
	// NotifyJobsChanged tells every instance, when the transaction commits, that the
	// state of these jobs changed (their SSE streams send a state or terminal frame).
	NotifyJobsChanged(ctx context.Context, ids []uuid.UUID) error
}

// IngestStore runs ingest transactions with the inbox: the ids of the applied events are
// recorded in the same transaction as their effect.
type IngestStore interface {
	// ApplyNew records the events of evs not recorded yet and runs fn with them, in one
	// transaction.
	ApplyNew(ctx context.Context, consumer string, evs []Event, fn func(ctx context.Context, tx IngestTx, fresh []Event) error) error
	// ApplyOnce is ApplyNew for one event; applied is false when it was recorded already.
	ApplyOnce(ctx context.Context, consumer string, ev Event, fn func(ctx context.Context, tx IngestTx) error) (applied bool, err error)
}

// Event is one decoded and validated event of the events exchange.
type Event struct {
	ID            uuid.UUID
	Type          string
	Time          time.Time
	TenantID      uuid.UUID
	UserID        *uuid.UUID
	CorrelationID *uuid.UUID
	// Data is the event's data object as published.
	Data []byte
	// Body is the whole envelope as published; webhooks deliver it unchanged.
	Body []byte
	// Payload is the decoded data: a value of this package for the events the domain folds
	// (JobQueued ... JobCancelled, PaymentSucceeded, PaymentFailed, PaymentRefunded), the
	// generated payload for those the store merges field by field (snapshots, identity).
	Payload any
}

// JobID returns the render job a life-cycle event is about.
func (e Event) JobID() (uuid.UUID, bool) {
	switch p := e.Payload.(type) {
	case JobQueued:
		return p.RenderJobID, true
	case JobStarted:
		return p.RenderJobID, true
	case JobCompleted:
		return p.RenderJobID, true
	case JobFailed:
		return p.RenderJobID, true
	case JobCancelled:
		return p.RenderJobID, true
	}
	return uuid.Nil, false
}

// IsLifecycle reports whether e is a render job life-cycle event of the events exchange
// (queued, started, completed, failed, cancelled), which the job's timeline records.
func (e Event) IsLifecycle() bool {
	_, isJob := e.JobID()
	return isJob
}
