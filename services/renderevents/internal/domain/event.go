// Package domain holds the rules of the render-events service: how render and identity
// events build the read models (a job only moves forward), how usage is counted, how
// webhooks are signed, retried and filtered, which outbound addresses are allowed, and the
// ports the application needs from the store.
package domain

import (
	"time"

	"github.com/google/uuid"
)

// ProgressEventType is the event name of a render job progress tick; ticks are never
// delivered to webhooks.
const ProgressEventType = "render.job.progress.v1"

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

// JobQueued is render.job.queued.v1 as a job folds it.
type JobQueued struct {
	RenderJobID       uuid.UUID
	SavedProjectID    uuid.UUID
	OriginalProjectID *uuid.UUID
	PriorityQueue     string
	PriorityScore     *int
	PriceType         string
	PaidPriceMinor    *int64
	Region            string
	Resolution        *string
	DurationSec       *float64
}

// JobStarted is render.job.started.v1 as a job folds it.
type JobStarted struct {
	RenderJobID uuid.UUID
	StartedAt   time.Time
	NodeIDs     []uuid.UUID
	Region      *string
	TotalFrames *int
}

// JobCompleted is render.job.completed.v1 as a job folds it.
type JobCompleted struct {
	RenderJobID          uuid.UUID
	ExportID             uuid.UUID
	OutputURL            string
	DurationSec          float64
	SizeBytes            int64
	SavedProjectID       *uuid.UUID
	OriginalProjectID    *uuid.UUID
	ThumbnailURL         *string
	Resolution           *string
	Width                *int
	Height               *int
	RenderComputeSeconds *int
	NodeIDsUsed          []uuid.UUID
	PriceType            *string
	PaidPriceMinor       *int64
}

// JobFailed is render.job.failed.v1 as a job folds it.
type JobFailed struct {
	RenderJobID      uuid.UUID
	FailedAtStep     string
	ErrorMessage     string
	SavedProjectID   *uuid.UUID
	ErrorCode        *string
	RetryCount       *int
	RefundRequired   bool
	PriceType        *string
	PaidPriceMinor   *int64
	NodeIDsAttempted []uuid.UUID
}

// JobCancelled is render.job.cancelled.v1 as a job folds it.
type JobCancelled struct {
	RenderJobID           uuid.UUID
	CancelledByUserID     uuid.UUID
	CancelledAtStep       *string
	ProgressWhenCancelled *int
	RefundRequired        bool
}

// PaymentSucceeded is identity.payment.succeeded.v1 as usage meters it.
type PaymentSucceeded struct {
	AmountMinor int64
}

// PaymentFailed is identity.payment.failed.v1 as usage meters it.
type PaymentFailed struct {
	AmountMinor *int64
}

// PaymentRefunded is identity.payment.refunded.v1 as usage meters it and refunds settle.
type PaymentRefunded struct {
	PaymentID         uuid.UUID
	RefundAmountMinor int64
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
