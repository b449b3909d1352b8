// Package domain holds the rules of the render-events service: how render and identity
// events build the read models (a job only moves forward), how usage is counted, how
// webhooks are signed, retried and filtered, and which outbound addresses are allowed.
// It imports no transport or database package.
package domain

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
)

// Event is one decoded and validated event of the events exchange or the progress exchange.
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
	// Payload is the generated, validated payload type (a value, e.g.
	// events.RenderJobCompletedV1Payload).
	Payload events.Payload
}

// ErrInvalidEvent marks a message that does not conform to the AsyncAPI document: no retry
// can fix it.
var ErrInvalidEvent = errors.New("invalid event")

// ParseEvent decodes and validates a message body: the envelope, the producer constant and
// the data against the event's payload schema. Failures wrap ErrInvalidEvent.
func ParseEvent(body []byte) (Event, error) {
	env, p, err := events.DecodeEvent(body)
	if err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrInvalidEvent, err)
	}
	return Event{
		ID:            env.EventID,
		Type:          env.EventType,
		Time:          env.EventTime.UTC(),
		TenantID:      env.TenantID,
		UserID:        env.UserID,
		CorrelationID: env.CorrelationID,
		Data:          env.Data,
		Body:          body,
		Payload:       p,
	}, nil
}

// JobID returns the render job an event is about, if it is a render job event.
func (e Event) JobID() (uuid.UUID, bool) {
	switch p := e.Payload.(type) {
	case events.RenderJobQueuedV1Payload:
		return p.RenderJobID, true
	case events.RenderJobStartedV1Payload:
		return p.RenderJobID, true
	case events.RenderJobCompletedV1Payload:
		return p.RenderJobID, true
	case events.RenderJobFailedV1Payload:
		return p.RenderJobID, true
	case events.RenderJobCancelledV1Payload:
		return p.RenderJobID, true
	case events.RenderJobProgressV1Payload:
		return p.RenderJobID, true
	}
	return uuid.Nil, false
}

// IsLifecycle reports whether e is a render job life-cycle event of the events exchange
// (queued, started, completed, failed, cancelled), which the job's timeline records.
func (e Event) IsLifecycle() bool {
	_, isJob := e.JobID()
	return isJob && e.Type != events.RenderJobProgressV1
}
