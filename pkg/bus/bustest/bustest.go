// Package bustest gives each test its own topology on the real RabbitMQ (exchange and queue
// names unique to the test, deleted when it ends) and helpers to publish envelopes and to
// read queues with a deadline.
package bustest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
)

// DefaultURL is the broker used when AMQP_TEST_URL is not set.
const DefaultURL = "amqp://guest:guest@127.0.0.1:5672/"

// URL is the broker of the tests.
func URL() string {
	if u := os.Getenv("AMQP_TEST_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// Config is a bus configuration on the test broker whose exchanges and queues are unique to
// t, so parallel tests and packages never meet; they are deleted when t ends. A failing
// handler is retried twice within milliseconds and the outbox is polled every 20ms, so
// what a test waits for happens fast.
func Config(t testing.TB) bus.Config {
	t.Helper()
	suffix := strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	cfg := bus.Config{
		AMQPURL:            URL(),
		Service:            "test-" + suffix,
		EventsExchange:     "events.test-" + suffix,
		ProgressExchange:   "render.progress.test-" + suffix,
		DeadLetterExchange: "dead-letter.test-" + suffix,
		Retry:              bus.RetryConfig{MaxRetries: 2, InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
		Outbox:             bus.OutboxConfig{PollInterval: 20 * time.Millisecond, ResendInterval: 50 * time.Millisecond},
	}
	t.Cleanup(func() { Remove(t, cfg) })
	return cfg
}

// Remove deletes cfg's durable queues and its exchanges (what Config does when the test
// ends).
func Remove(t testing.TB, cfg bus.Config) {
	t.Helper()
	conn, err := bus.Dial(cfg.AMQPURL)
	if err != nil {
		t.Logf("bustest: remove the test topology: %v", err)
		return
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Logf("bustest: remove the test topology: %v", err)
		return
	}
	for _, q := range []string{cfg.ServiceQueue(), cfg.DeadLetterQueue()} {
		_, _ = ch.QueueDelete(q, false, false, false)
	}
	for _, ex := range []string{cfg.EventsExchange, cfg.ProgressExchange, cfg.DeadLetterExchange} {
		if ex != "" {
			_ = ch.ExchangeDelete(ex, false, false)
		}
	}
}

// Channel is a plain AMQP channel on the test broker, closed when t ends: to set up what a
// foreign producer would and to observe what the bus did.
func Channel(t testing.TB) *amqp.Channel {
	t.Helper()
	conn, err := bus.Dial(URL())
	if err != nil {
		t.Fatalf("bustest: dial RabbitMQ at %s: %v", URL(), err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("bustest: open a channel: %v", err)
	}
	return ch
}

// BindEvents declares cfg's events exchange as the bus does and binds an exclusive queue to
// it with keys, as another consuming service would; it returns the queue's deliveries,
// acknowledged on receipt.
func BindEvents(t testing.TB, cfg bus.Config, keys ...string) <-chan amqp.Delivery {
	t.Helper()
	ch := Channel(t)
	if err := bus.DeclareEventsExchange(ch, cfg); err != nil {
		t.Fatalf("bustest: %v", err)
	}
	return Bind(t, ch, cfg.EventsExchange, keys...)
}

// Bind binds an exclusive queue to exchange (which exists) with keys and returns the
// queue's deliveries, acknowledged on receipt.
func Bind(t testing.TB, ch *amqp.Channel, exchange string, keys ...string) <-chan amqp.Delivery {
	t.Helper()
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatalf("bustest: declare a queue: %v", err)
	}
	for _, k := range keys {
		if err := ch.QueueBind(q.Name, k, exchange, false, nil); err != nil {
			t.Fatalf("bustest: bind to %s with %q: %v", exchange, k, err)
		}
	}
	d, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatalf("bustest: consume %s: %v", q.Name, err)
	}
	return d
}

// Receive waits up to within for the next delivery.
func Receive(t testing.TB, deliveries <-chan amqp.Delivery, within time.Duration) amqp.Delivery {
	t.Helper()
	select {
	case d := <-deliveries:
		return d
	case <-time.After(within):
		t.Fatalf("bustest: no delivery within %s", within)
		return amqp.Delivery{}
	}
}

// Read takes n messages from queue (a dead-letter queue, say), in queue order, polling until
// they are there or within has passed.
func Read(t testing.TB, ch *amqp.Channel, queue string, n int, within time.Duration) []amqp.Delivery {
	t.Helper()
	var out []amqp.Delivery
	deadline := time.Now().Add(within)
	for len(out) < n {
		d, ok, err := ch.Get(queue, true)
		if err != nil {
			t.Fatalf("bustest: read %s: %v", queue, err)
		}
		if ok {
			out = append(out, d)
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("bustest: %d of %d messages in %s within %s", len(out), n, queue, within)
		}
		time.Sleep(10 * time.Millisecond) // polling the queue: the broker does not push to Get
	}
	return out
}

// Depth is the number of messages ready in queue (0 when it does not exist).
func Depth(t testing.TB, queue string) int {
	t.Helper()
	q, err := Channel(t).QueueDeclarePassive(queue, true, false, false, false, nil)
	var amqpErr *amqp.Error
	if errors.As(err, &amqpErr) && amqpErr.Code == amqp.NotFound {
		return 0
	}
	if err != nil {
		t.Fatalf("bustest: depth of %s: %v", queue, err)
	}
	return q.Messages
}

// Publish publishes envs to cfg's events exchange as a service does (bus.PublishEvents,
// routing key = event type) and returns once the broker confirmed them.
func Publish(t testing.TB, cfg bus.Config, envs ...events.EventEnvelope) {
	t.Helper()
	pub, err := bus.NewAMQPPublisher(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("bustest: publisher: %v", err)
	}
	defer func() { _ = pub.Close() }()
	if err := bus.PublishEvents(context.Background(), pub, envs...); err != nil {
		t.Fatalf("bustest: publish: %v", err)
	}
}

// PublishRaw publishes p to exchange with routing key as a foreign producer might (a
// poison message: any body, any headers) and returns once the broker confirmed it.
func PublishRaw(t testing.TB, exchange, key string, p amqp.Publishing) {
	t.Helper()
	ch := Channel(t)
	if err := ch.Confirm(false); err != nil {
		t.Fatalf("bustest: confirm mode: %v", err)
	}
	dc, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), exchange, key, false, false, p)
	if err == nil && !dc.Wait() {
		err = errors.New("not confirmed by the broker")
	}
	if err != nil {
		t.Fatalf("bustest: publish to %s with %q: %v", exchange, key, err)
	}
}

// QueueType is the type of an existing queue (quorum or classic), declared again by declare
// as a queue of the type asked (as the bus does, with the same arguments otherwise). The
// broker does not tell a queue's type on a passive declare, but it refuses a declaration
// of another type (PRECONDITION_FAILED).
func QueueType(t testing.TB, declare func(ch *amqp.Channel, as bus.QueueType) error) bus.QueueType {
	t.Helper()
	err := declare(Channel(t), bus.QueueQuorum)
	var amqpErr *amqp.Error
	switch {
	case err == nil:
		return bus.QueueQuorum
	case errors.As(err, &amqpErr) && amqpErr.Code == amqp.PreconditionFailed:
		if err := declare(Channel(t), bus.QueueClassic); err != nil {
			t.Fatalf("bustest: the queue is neither quorum nor classic: %v", err)
		}
		return bus.QueueClassic
	}
	t.Fatalf("bustest: queue type: %v", err)
	return ""
}
