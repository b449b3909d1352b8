package bus_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
)

func amqpURL() string {
	if u := os.Getenv("AMQP_TEST_URL"); u != "" {
		return u
	}
	return "amqp://guest:guest@127.0.0.1:5672/"
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// testConfig names every exchange and queue uniquely so parallel test packages never meet,
// and deletes them when the test ends.
func testConfig(t *testing.T) bus.Config {
	t.Helper()
	suffix := strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	cfg := bus.Config{
		AMQPURL:            amqpURL(),
		Service:            "bustest-" + suffix,
		EventsExchange:     "events.test-" + suffix,
		ProgressExchange:   "render.progress.test-" + suffix,
		DeadLetterExchange: "dead-letter.test-" + suffix,
		Retry:              bus.RetryConfig{MaxRetries: 2, InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
		Outbox:             bus.OutboxConfig{PollInterval: 20 * time.Millisecond, ResendInterval: 50 * time.Millisecond},
	}
	ch := rawChannel(t)
	t.Cleanup(func() {
		for _, q := range []string{cfg.ServiceQueue(), cfg.DeadLetterQueue()} {
			_, _ = ch.QueueDelete(q, false, false, false)
		}
		for _, ex := range []string{cfg.EventsExchange, cfg.ProgressExchange, cfg.DeadLetterExchange} {
			_ = ch.ExchangeDelete(ex, false, false)
		}
	})
	return cfg
}

// rawChannel is a plain AMQP channel on the real broker, to observe what the bus did.
func rawChannel(t *testing.T) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(amqpURL())
	if err != nil {
		t.Fatalf("dial RabbitMQ at %s: %v", amqpURL(), err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("open channel: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return ch
}

// bindQueue declares an exclusive queue on exchange with the keys and returns its deliveries.
func bindQueue(t *testing.T, ch *amqp.Channel, exchange string, keys ...string) <-chan amqp.Delivery {
	t.Helper()
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := ch.QueueBind(q.Name, k, exchange, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func declareEventsExchange(t *testing.T, ch *amqp.Channel, cfg bus.Config) {
	t.Helper()
	if err := ch.ExchangeDeclare(cfg.EventsExchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
}

func envelope(t *testing.T, eventType string, data any) events.EventEnvelope {
	t.Helper()
	env, err := bus.NewEnvelope(eventType, uuid.New(), data)
	if err != nil {
		t.Fatal(err)
	}
	producer := events.ProducerRenderOrchestrator
	env.Producer = &producer
	return env
}

func toMessage(t *testing.T, env events.EventEnvelope) *message.Message {
	t.Helper()
	msg, err := bus.Message(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func receive(t *testing.T, d <-chan amqp.Delivery, within time.Duration) amqp.Delivery {
	t.Helper()
	select {
	case m := <-d:
		return m
	case <-time.After(within):
		t.Fatalf("no delivery within %s", within)
		return amqp.Delivery{}
	}
}

func decodeDelivery(t *testing.T, d amqp.Delivery) events.EventEnvelope {
	t.Helper()
	var env events.EventEnvelope
	if err := json.Unmarshal(d.Body, &env); err != nil {
		t.Fatalf("delivery body is not an envelope: %v", err)
	}
	return env
}

// runRouter runs r until the test ends and waits until it is running.
func runRouter(t *testing.T, r *message.Router) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := r.Run(ctx); err != nil {
			t.Errorf("router: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	select {
	case <-r.Running():
	case <-time.After(10 * time.Second):
		t.Fatal("router did not start")
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
