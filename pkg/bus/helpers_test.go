package bus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
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

// fmtWrap wraps err with a prefix, as fmt.Errorf("%s: %w") does.
func fmtWrap(prefix string, err error) error { return fmt.Errorf("%s: %w", prefix, err) }

// publisher is a publisher to cfg's events exchange, closed when the test ends.
func publisher(t *testing.T, cfg bus.Config) message.Publisher {
	t.Helper()
	pub, err := bus.NewAMQPPublisher(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	return pub
}

// queueRouter is a router built with metrics (nil: none) and opts that dead-letters to
// cfg's dead-letter queue, and the subscriber of cfg's queue bound with keys; both are closed
// when the test ends.
func queueRouter(t *testing.T, cfg bus.Config, metrics bus.Metrics, keys []string, opts ...bus.RouterOption) (*message.Router, *bus.Subscriber) {
	t.Helper()
	log := testLogger(t)
	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dlq.Close() })
	router, err := bus.NewRouter(cfg, dlq, metrics, log, opts...)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := bus.NewSubscriber(cfg, log, keys...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	return router, sub
}
