package httpapi_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
)

// generatedEvent is a content.svg_preview.generated.v1 delivery, decoded and validated with
// gen/events.
type generatedEvent struct {
	Delivery amqp.Delivery
	Envelope events.EventEnvelope
	Data     events.ContentSvgPreviewGeneratedV1Payload
}

// eventQueue is an exclusive queue bound to content.svg_preview.generated.v1 on an events
// exchange, as another service would bind one.
type eventQueue struct {
	t          testing.TB
	deliveries <-chan amqp.Delivery
}

// listenGenerated binds a test queue to content.svg_preview.generated.v1 on exchange
// (declared durable topic if absent) before anything is published.
func listenGenerated(t testing.TB, url, exchange string) *eventQueue {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatalf("dial the broker: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatalf("declare %s: %v", exchange, err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q.Name, events.ContentSvgPreviewGeneratedV1, exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	d, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &eventQueue{t: t, deliveries: d}
}

// next waits (up to a minute) for the event of preview id, skipping other previews' events;
// an event that does not validate against the schema fails the test.
func (q *eventQueue) next(id uuid.UUID) generatedEvent {
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
				return generatedEvent{Delivery: d, Envelope: env, Data: data}
			}
		case <-deadline:
			q.t.Fatalf("no content.svg_preview.generated.v1 for %s within a minute", id)
		}
	}
}
