package bus_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

func TestFailingMessagesAreDeadLetteredAndTheConsumerKeepsGoing(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)

	reg := prometheus.NewPedanticRegistry()
	metrics, err := bus.NewPrometheusMetrics(reg, bus.WithEventTypes("test.ok.v1", "test.flaky.v1", "test.poison.v1", "test.panics.v1"))
	if err != nil {
		t.Fatal(err)
	}
	router, sub := queueRouter(t, cfg, metrics, []string{"test.#"})

	var calls = map[string]*atomic.Int32{
		"test.flaky.v1": {}, "test.poison.v1": {}, "test.panics.v1": {}, "test.ok.v1": {},
	}
	processed := make(chan uuid.UUID, 1)
	bus.Consume(router, "bustest", sub, bus.Handlers{
		"test.flaky.v1": func(context.Context, events.EventEnvelope) error {
			calls["test.flaky.v1"].Add(1)
			return errors.New("database is down")
		},
		"test.poison.v1": func(context.Context, events.EventEnvelope) error {
			calls["test.poison.v1"].Add(1)
			return bus.Permanent(errors.New("data.step: not in the step enumeration"))
		},
		"test.panics.v1": func(context.Context, events.EventEnvelope) error {
			calls["test.panics.v1"].Add(1)
			panic("nil map write")
		},
		"test.ok.v1": func(_ context.Context, env events.EventEnvelope) error {
			calls["test.ok.v1"].Add(1)
			processed <- env.EventID
			return nil
		},
	})
	runRouter(t, router)

	pub := publisher(t, cfg)
	ctx := context.Background()
	sent := map[string]events.EventEnvelope{}
	for _, et := range []string{"test.flaky.v1", "test.poison.v1", "test.panics.v1"} {
		sent[et] = envelope(t, et, map[string]any{"n": 1})
		if err := bus.PublishEvents(ctx, pub, sent[et]); err != nil {
			t.Fatal(err)
		}
	}
	bustest.PublishRaw(t, cfg.EventsExchange, "test.garbage.v1", amqp.Publishing{MessageId: "garbage-1", Body: []byte("not an envelope")})
	ok := envelope(t, "test.ok.v1", map[string]any{"n": 2})
	if err := bus.PublishEvents(ctx, pub, ok); err != nil {
		t.Fatal(err)
	}

	select {
	case id := <-processed:
		if id != ok.EventID {
			t.Fatalf("processed %s, want %s", id, ok.EventID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the message after the failing ones was not processed")
	}

	tests := []struct {
		name, messageID, reason, permanent, attempts string
		calls                                        int32
	}{
		{"a failing handler is retried, then dead-lettered", sent["test.flaky.v1"].EventID.String(), "database is down", "false", "3", 3},
		{"a permanent error skips the retries", sent["test.poison.v1"].EventID.String(), "not in the step enumeration", "true", "1", 1},
		{"a panic is recovered, retried and dead-lettered", sent["test.panics.v1"].EventID.String(), "nil map write", "false", "3", 3},
		{"an invalid envelope is dead-lettered at once", "garbage-1", "decode envelope", "true", "1", 0},
	}
	dead := byMessageID(bustest.Read(t, bustest.Channel(t), cfg.DeadLetterQueue(), len(tests), 5*time.Second))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, found := dead[tt.messageID]
			if !found {
				t.Fatalf("message %s not in %s", tt.messageID, cfg.DeadLetterQueue())
			}
			if r, _ := d.Headers[bus.MetaDeadLetterReason].(string); !strings.Contains(r, tt.reason) {
				t.Errorf("reason %q does not name %q", r, tt.reason)
			}
			if d.Headers[bus.MetaDeadLetterPermanent] != tt.permanent {
				t.Errorf("permanent = %v, want %s", d.Headers[bus.MetaDeadLetterPermanent], tt.permanent)
			}
			if d.Headers[bus.MetaDeadLetterAttempts] != tt.attempts {
				t.Errorf("attempts = %v, want %s", d.Headers[bus.MetaDeadLetterAttempts], tt.attempts)
			}
			if et := d.Headers[bus.MetaEventType]; et != nil {
				if n := calls[et.(string)].Load(); n != tt.calls {
					t.Errorf("handler called %d times, want %d", n, tt.calls)
				}
			}
		})
	}

	wantCounts := map[string]float64{
		`bus_messages_dead_lettered_total{event_type="test.flaky.v1"}`: 1,
		`bus_messages_failed_total{event_type="test.flaky.v1"}`:        3,
		`bus_messages_failed_total{event_type="test.poison.v1"}`:       1,
		`bus_messages_dead_lettered_total{event_type="other"}`:         1,
		`bus_messages_handled_total{event_type="test.ok.v1"}`:          1,
	}
	got := counterValues(t, reg)
	for k, want := range wantCounts {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
}

// byMessageID indexes deliveries by their message id.
func byMessageID(ds []amqp.Delivery) map[string]amqp.Delivery {
	out := make(map[string]amqp.Delivery, len(ds))
	for _, d := range ds {
		out[d.MessageId] = d
	}
	return out
}

func counterValues(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += `{` + l.GetName() + `="` + l.GetValue() + `"}`
			}
			out[key] = m.GetCounter().GetValue()
		}
	}
	return out
}

// TestAMessageFailingWhileTheDatabaseIsDownGoesBackToTheQueue runs a router whose database
// check (WithPing) asks a real PostgreSQL, or an address where none answers during an outage:
// a message failing during the outage is redelivered, not dead-lettered, and applied once the
// database is back; a message whose failures end just as the database comes back is tried once
// more and applied, not dead-lettered.
func TestAMessageFailingWhileTheDatabaseIsDownGoesBackToTheQueue(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	ctx := context.Background()
	up, _ := pgtest.NewDB(t)
	down, err := pgxpool.New(ctx, "postgres://postgres@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(down.Close)
	var outage atomic.Bool
	outage.Store(true)
	ping := func(ctx context.Context) error {
		if outage.Load() {
			return down.Ping(ctx)
		}
		return up.Ping(ctx)
	}

	router, sub := queueRouter(t, cfg, nil, []string{"test.#"}, bus.WithPing(ping))
	var outageCalls, recoveringCalls atomic.Int32
	applied := make(chan string, 2)
	bus.Consume(router, "bustest", sub, bus.Handlers{
		"test.outage.v1": func(context.Context, events.EventEnvelope) error {
			if outageCalls.Add(1); outage.Load() {
				return errors.New("connection refused")
			}
			applied <- "test.outage.v1"
			return nil
		},
		"test.recovering.v1": func(context.Context, events.EventEnvelope) error {
			if recoveringCalls.Add(1) <= 3 { // the first attempt and bustest.Config's two retries
				return errors.New("connection refused")
			}
			applied <- "test.recovering.v1"
			return nil
		},
	})
	runRouter(t, router)
	pub := publisher(t, cfg)
	if err := bus.PublishEvents(ctx, pub, envelope(t, "test.outage.v1", map[string]any{})); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the failing message redelivered during the outage", func() bool {
		return outageCalls.Load() > 2*3 // two deliveries' attempts
	})
	outage.Store(false)
	if got := <-applied; got != "test.outage.v1" {
		t.Fatalf("applied %s first", got)
	}
	if err := bus.PublishEvents(ctx, pub, envelope(t, "test.recovering.v1", map[string]any{})); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-applied:
		if got != "test.recovering.v1" || recoveringCalls.Load() != 4 {
			t.Fatalf("applied %s after %d calls, want test.recovering.v1 after 4", got, recoveringCalls.Load())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the recovering message was not applied")
	}
	q, err := bustest.Channel(t).QueueDeclarePassive(cfg.DeadLetterQueue(), true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Messages != 0 {
		t.Errorf("%d messages dead-lettered, want none", q.Messages)
	}
}
