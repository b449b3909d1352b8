package bus_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
)

// lockedBuffer collects log output written from the router's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestATransientRouterDropsFailingMessagesOnceCountsThemByReasonAndLogsAtABoundedRate(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	reg := prometheus.NewPedanticRegistry()
	metrics, err := bus.NewPrometheusMetrics(reg, bus.WithEventTypes("test.tick.v1"))
	if err != nil {
		t.Fatal(err)
	}
	router, err := bus.NewTransientRouter(cfg, metrics, log)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := bus.NewProgressSubscriber(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	var calls atomic.Int32
	processed := make(chan uuid.UUID, 1)
	bus.Consume(router, "ticks", sub, bus.Handlers{
		"test.tick.v1": func(_ context.Context, env events.EventEnvelope) error {
			calls.Add(1)
			switch string(env.Data) {
			case `{"n":-1}`:
				return bus.Permanent(errors.New("data.n: must be at least 0"))
			case `{"n":0}`:
				return errors.New("the hub is closed")
			}
			processed <- env.EventID
			return nil
		},
	})
	runRouter(t, router)

	publish := func(body []byte) {
		bustest.PublishRaw(t, cfg.ProgressExchange, "", amqp.Publishing{ContentType: "application/json", Body: body})
	}
	publish([]byte("not an envelope"))
	for _, n := range []int{-1, 0, -1, 0} {
		publish(toMessage(t, envelope(t, "test.tick.v1", map[string]any{"n": n})).Payload)
	}
	valid := envelope(t, "test.tick.v1", map[string]any{"n": 5})
	publish(toMessage(t, valid).Payload)
	select {
	case id := <-processed:
		if id != valid.EventID {
			t.Fatalf("processed %s, want the valid tick %s", id, valid.EventID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the valid message after the failing ones was not handled")
	}
	if n := calls.Load(); n != 5 {
		t.Errorf("the handler ran %d times, want 5: once per enveloped message, never a retry", n)
	}
	// The handled counter moves once the handler has returned, after it reported the tick.
	handled := `bus_messages_handled_total{event_type="test.tick.v1"}`
	got := counterValues(t, reg)
	for deadline := time.Now().Add(5 * time.Second); got[handled] < 1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		got = counterValues(t, reg)
	}
	for key, want := range map[string]float64{
		`bus_messages_dropped_total{event_type="other"}{reason="invalid_envelope"}`:       1,
		`bus_messages_dropped_total{event_type="test.tick.v1"}{reason="invalid_payload"}`: 2,
		`bus_messages_dropped_total{event_type="test.tick.v1"}{reason="failed"}`:          2,
		handled: 1,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
	if n := strings.Count(logs.String(), "transient message dropped"); n != 1 {
		t.Errorf("%d log lines about dropped messages, want 1 within %s:\n%s", n, bus.DropLogInterval, logs.String())
	}
}
