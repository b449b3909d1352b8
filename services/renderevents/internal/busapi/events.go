package busapi

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// ErrInvalidEvent marks a message that does not conform to the AsyncAPI document: no retry
// can fix it.
var ErrInvalidEvent = errors.New("invalid event")

// invalidEvent is an ErrInvalidEvent whose message is the cause's own.
type invalidEvent struct{ err error }

func (e invalidEvent) Error() string   { return e.err.Error() }
func (e invalidEvent) Unwrap() []error { return []error{ErrInvalidEvent, e.err} }

// ParseEvent decodes and validates a message body (the envelope, the producer constant and
// the data against the event's payload schema) and maps it to the domain's event. Failures
// wrap ErrInvalidEvent. The envelope is read in one pass (readEnvelope) and data by its
// generated payload decoder; a body that pass does not take as plain goes to the generated
// decoder of the whole message, which gives the verdict and the error.
func ParseEvent(body []byte) (domain.Event, error) {
	if env, ok := readEnvelope(body); ok && events.Known(env.EventType) && producerFits(env) {
		if p, err := events.Decode(env.EventType, env.Data); err == nil {
			return domainEvent(env, body, p), nil
		}
	}
	return parseGenerated(body)
}

// parseGenerated is ParseEvent by the generated decoder of the whole message.
func parseGenerated(body []byte) (domain.Event, error) {
	env, p, err := events.DecodeEvent(body)
	var invalid *events.ValidationError
	switch {
	case errors.As(err, &invalid):
		return domain.Event{}, invalidEvent{err} // its message says "invalid event" already
	case err != nil:
		return domain.Event{}, fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	return domainEvent(env, body, p), nil
}

// producerFits is the generated decoder's check of the producer: when the envelope names
// one, it is the event type's.
func producerFits(env events.EventEnvelope) bool {
	want := events.ProducerOf(env.EventType)
	return env.Producer == nil || *env.Producer == "" || want == "" || string(*env.Producer) == want
}

func domainEvent(env events.EventEnvelope, body []byte, p events.Payload) domain.Event {
	return domain.Event{
		ID:            env.EventID,
		Type:          env.EventType,
		Time:          env.EventTime.UTC(),
		TenantID:      env.TenantID,
		UserID:        env.UserID,
		CorrelationID: env.CorrelationID,
		Data:          env.Data,
		Body:          body,
		Payload:       domainPayload(p),
	}
}

// domainPayload maps the payloads the domain folds to its own values; the others (snapshots,
// identity) stay as generated, for the store to merge.
func domainPayload(p events.Payload) any {
	switch p := p.(type) {
	case events.RenderJobQueuedV1Payload:
		return domain.JobQueued{RenderJobID: p.RenderJobID, SavedProjectID: p.SavedProjectID,
			OriginalProjectID: p.OriginalProjectID, PriorityQueue: string(p.PriorityQueue), PriorityScore: p.PriorityScore,
			PriceType: string(p.PriceType), PaidPriceMinor: p.PaidPriceMinor, Region: p.Region, Resolution: p.Resolution,
			DurationSec: p.DurationSec}
	case events.RenderJobStartedV1Payload:
		return domain.JobStarted{RenderJobID: p.RenderJobID, StartedAt: p.StartedAt, NodeIDs: p.NodeIDs, Region: p.Region,
			TotalFrames: p.TotalFrames}
	case events.RenderJobCompletedV1Payload:
		return domain.JobCompleted{RenderJobID: p.RenderJobID, ExportID: p.ExportID, OutputURL: p.OutputURL,
			DurationSec: p.DurationSec, SizeBytes: p.SizeBytes, SavedProjectID: p.SavedProjectID,
			OriginalProjectID: p.OriginalProjectID, ThumbnailURL: p.ThumbnailURL, Resolution: p.Resolution, Width: p.Width,
			Height: p.Height, RenderComputeSeconds: p.RenderComputeSeconds, NodeIDsUsed: p.NodeIDsUsed,
			PriceType: p.PriceType, PaidPriceMinor: p.PaidPriceMinor}
	case events.RenderJobFailedV1Payload:
		return domain.JobFailed{RenderJobID: p.RenderJobID, FailedAtStep: string(p.FailedAtStep), ErrorMessage: p.ErrorMessage,
			SavedProjectID: p.SavedProjectID, ErrorCode: p.ErrorCode, RetryCount: p.RetryCount,
			RefundRequired: p.RefundRequired, PriceType: p.PriceType, PaidPriceMinor: p.PaidPriceMinor,
			NodeIDsAttempted: p.NodeIDsAttempted}
	case events.RenderJobCancelledV1Payload:
		return domain.JobCancelled{RenderJobID: p.RenderJobID, CancelledByUserID: p.CancelledByUserID,
			CancelledAtStep: p.CancelledAtStep, ProgressWhenCancelled: p.ProgressWhenCancelled,
			RefundRequired: p.RefundRequired}
	case events.IdentityPaymentSucceededV1Payload:
		return domain.PaymentSucceeded{AmountMinor: p.AmountMinor}
	case events.IdentityPaymentFailedV1Payload:
		return domain.PaymentFailed{AmountMinor: p.AmountMinor}
	case events.IdentityPaymentRefundedV1Payload:
		return domain.PaymentRefunded{PaymentID: p.PaymentID, RefundAmountMinor: p.RefundAmountMinor}
	}
	return p
}

// progressOf reads a progress tick of tenant at t.
func progressOf(tenant uuid.UUID, t time.Time, p events.RenderJobProgressV1Payload) domain.Progress {
	return domain.Progress{JobID: p.RenderJobID, TenantID: tenant, Step: string(p.Step),
		Progress: domain.ClampProgress(p.Progress), CurrentFrame: p.CurrentFrame, TotalFrames: p.TotalFrames,
		EtaSeconds: p.EtaSeconds, Message: p.Message, EventTime: t}
}
