package mediatest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
)

// GeneratedEvent is a content.svg_preview.generated.v1 delivery, decoded and validated with
// gen/events.
type GeneratedEvent struct {
	Delivery amqp.Delivery
	Envelope events.EventEnvelope
	Data     events.ContentSvgPreviewGeneratedV1Payload
}

// EventQueue is an exclusive queue bound to content.svg_preview.generated.v1 on an events
// exchange, as another service would bind one.
type EventQueue struct {
	t          testing.TB
	deliveries <-chan amqp.Delivery
}

// ListenGenerated binds a test queue to content.svg_preview.generated.v1 on cfg's events
// exchange, as another service would bind one, before anything is published.
func ListenGenerated(t testing.TB, cfg bus.Config) *EventQueue {
	t.Helper()
	return &EventQueue{t: t, deliveries: bustest.BindEvents(t, cfg, events.ContentSvgPreviewGeneratedV1)}
}

// Next waits (up to a minute) for the event of preview id, skipping other previews' events;
// an event that does not validate against the schema fails the test.
func (q *EventQueue) Next(id uuid.UUID) GeneratedEvent {
	q.t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case d := <-q.deliveries:
			env, p, err := events.DecodeEvent(d.Body)
			if err != nil {
				q.t.Fatalf("an event does not validate against the AsyncAPI schema: %v\n%s", err, d.Body)
			}
			data, ok := p.(events.ContentSvgPreviewGeneratedV1Payload)
			if !ok {
				q.t.Fatalf("payload of %s is %T", env.EventType, p)
			}
			if data.SvgPreviewID == id {
				return GeneratedEvent{Delivery: d, Envelope: env, Data: data}
			}
		case <-deadline:
			q.t.Fatalf("no content.svg_preview.generated.v1 for %s within a minute", id)
		}
	}
}
