package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// EventPayload is the data of an event the AsyncAPI document declares (specs/asyncapi/events.yaml);
// the payload types generated from it satisfy it.
type EventPayload interface {
	// EventType is the event's name, its routing key on the events exchange.
	EventType() string
	// Validate reports what the document refuses in the payload.
	Validate() error
}

// Event is an event the service publishes.
type Event struct {
	// TenantID is the tenant the event belongs to: the caller's, or the configured default.
	TenantID uuid.UUID
	// UserID is the user who caused it, nil for a service.
	UserID *uuid.UUID
	// At is when it happened (the envelope's event_time); zero: when it is published.
	At      time.Time
	Payload EventPayload
}

// EventStore publishes events through the outbox. Call it with the Store of the transaction
// that makes the change: the event reaches the broker if and only if the change commits.
type EventStore interface {
	PublishEvent(ctx context.Context, e Event) error
}
