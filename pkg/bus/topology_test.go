package bus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
)

func TestEventsArePublishedToTheEventsExchangeWithTheEventNameAsRoutingKey(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	completed := bustest.BindEvents(t, cfg, "render.job.completed.v1")
	allRender := bustest.BindEvents(t, cfg, "render.#")
	identity := bustest.BindEvents(t, cfg, "identity.#")

	pub := publisher(t, cfg)

	traceID := trace.TraceID(uuid.New())
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, TraceFlags: trace.FlagsSampled,
	}))
	env := envelope(t, "render.job.completed.v1", map[string]any{"render_job_id": uuid.New()})
	if err := bus.PublishEvents(ctx, pub, env); err != nil {
		t.Fatal(err)
	}

	d := bustest.Receive(t, completed, 5*time.Second)
	if d.RoutingKey != "render.job.completed.v1" || d.Exchange != cfg.EventsExchange {
		t.Errorf("delivered via %q/%q, want %q/render.job.completed.v1", d.Exchange, d.RoutingKey, cfg.EventsExchange)
	}
	got := decodeDelivery(t, d)
	if got.EventID != env.EventID || got.EventType != env.EventType || string(got.Data) != string(env.Data) {
		t.Errorf("envelope changed on the way: got %+v, want %+v", got, env)
	}
	if got.TraceID == nil || *got.TraceID != uuid.UUID(traceID) {
		t.Errorf("trace_id = %v, want the publishing span's trace id %s", got.TraceID, traceID)
	}
	wantHeaders := map[string]string{
		bus.MetaEventType:   "render.job.completed.v1",
		bus.MetaTenantID:    env.TenantID.String(),
		bus.MetaTraceparent: "00-" + traceID.String() + "-0102030405060708-01",
	}
	for k, want := range wantHeaders {
		if d.Headers[k] != want {
			t.Errorf("header %s = %v, want %s", k, d.Headers[k], want)
		}
	}
	if d.MessageId != env.EventID.String() || d.ContentType != "application/json" || d.DeliveryMode != 2 {
		t.Errorf("properties message_id=%q content_type=%q delivery_mode=%d, want event id, application/json, persistent",
			d.MessageId, d.ContentType, d.DeliveryMode)
	}

	bustest.Receive(t, allRender, 5*time.Second) // a pattern binding matches too
	select {
	case d := <-identity:
		t.Errorf("identity.# queue received %s", d.RoutingKey)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestProgressReachesEveryInstanceThroughTheFanoutExchange(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Two instances of the consuming service, each with its own queue.
	var subs [2]<-chan *message.Message
	for i := range subs {
		sub, err := bus.NewProgressSubscriber(cfg, testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sub.Close() })
		msgs, err := sub.Subscribe(ctx, "render.job.progress.v1")
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = msgs
	}
	pub, err := bus.NewProgressPublisher(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })

	jobID := uuid.New()
	env := envelope(t, "render.job.progress.v1", map[string]any{"render_job_id": jobID, "step": "Rendering", "progress": 42})
	raw := bustest.Bind(t, bustest.Channel(t), cfg.ProgressExchange, "")
	if err := pub.Publish(bus.ProgressRoutingKey(jobID), toMessage(t, env)); err != nil {
		t.Fatal(err)
	}
	for i, msgs := range subs {
		select {
		case m := <-msgs:
			m.Ack()
			got, err := bus.Decode(m)
			if err != nil {
				t.Fatal(err)
			}
			if got.EventID != env.EventID {
				t.Errorf("instance %d got event %s, want %s", i, got.EventID, env.EventID)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("instance %d received no progress", i)
		}
	}
	d := bustest.Receive(t, raw, 5*time.Second)
	if want := "render.job.progress." + jobID.String(); d.RoutingKey != want {
		t.Errorf("routing key = %q, want %q", d.RoutingKey, want)
	}
	if d.DeliveryMode == 2 {
		t.Error("progress is published persistent, want transient")
	}
}

func TestTheServiceQueuesAreQuorumQueuesUnlessConfiguredClassic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		queueType bus.QueueType
		want      bus.QueueType
	}{{"", bus.QueueQuorum}, {bus.QueueQuorum, bus.QueueQuorum}, {bus.QueueClassic, bus.QueueClassic}} {
		t.Run("configured "+string(tc.queueType), func(t *testing.T) {
			t.Parallel()
			cfg := bustest.Config(t)
			cfg.QueueType = tc.queueType
			// The events queue as a subscriber declares it, the dead-letter queue as its
			// publisher does.
			sub, err := bus.NewSubscriber(cfg, testLogger(t), "render.#")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = sub.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := sub.Subscribe(ctx, "render.#"); err != nil {
				t.Fatal(err)
			}
			dlq, err := bus.NewDeadLetterPublisher(cfg, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = dlq.Close() })
			as := func(qt bus.QueueType) bus.Config { c := cfg; c.QueueType = qt; return c }
			declares := map[string]func(*amqp.Channel, bus.QueueType) error{
				cfg.ServiceQueue(): func(ch *amqp.Channel, qt bus.QueueType) error {
					return bus.DeclareServiceQueue(ch, as(qt), "render.#")
				},
				cfg.DeadLetterQueue(): func(ch *amqp.Channel, qt bus.QueueType) error {
					return bus.DeclareDeadLetterQueue(ch, as(qt))
				},
			}
			for q, declare := range declares {
				if got := bustest.QueueType(t, declare); got != tc.want {
					t.Errorf("%s is a %s queue, want %s", q, got, tc.want)
				}
			}
			// The batch consumer's declaration matches the subscriber's.
			if err := bus.DeclareServiceQueue(bustest.Channel(t), cfg, "render.#"); err != nil {
				t.Errorf("declare the service queue again: %v", err)
			}
		})
	}
}

func TestAQueueOfTheOtherTypeFailsTheDeclarationWithTheWayToMigrate(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	// A classic queue of the same name, as a service running with classic queues left it.
	if _, err := bustest.Channel(t).QueueDeclare(cfg.ServiceQueue(), true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	err := bus.DeclareServiceQueue(bustest.Channel(t), cfg, "render.#")
	if err == nil {
		t.Fatal("a quorum declaration of a classic queue succeeded")
	}
	for _, want := range []string{cfg.ServiceQueue(), "PRECONDITION_FAILED", "drain it and delete it", "BUS_SERVICE", "BUS_QUEUE_TYPE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	cfg.QueueType = bus.QueueClassic // keeping the type is the other way out
	if err := bus.DeclareServiceQueue(bustest.Channel(t), cfg, "render.#"); err != nil {
		t.Errorf("classic declaration of the classic queue: %v", err)
	}
}

func TestAnUnknownQueueTypeIsRefused(t *testing.T) {
	cfg := bustest.Config(t)
	cfg.QueueType = "stream"
	if _, err := bus.NewSubscriber(cfg, testLogger(t), "render.#"); err == nil || !strings.Contains(err.Error(), `"stream"`) {
		t.Errorf("error %v, want one naming the queue type", err)
	}
}

func TestWhatTheBrokerGivesUpOnInTheQuorumServiceQueueGoesToTheDeadLetterQueue(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	ch := bustest.Channel(t)
	if err := bus.DeclareDeadLetterQueue(ch, cfg); err != nil {
		t.Fatal(err)
	}
	if err := bus.DeclareServiceQueue(ch, cfg, "render.#"); err != nil {
		t.Fatal(err)
	}
	env := envelope(t, "render.job.completed.v1", map[string]any{"n": 1})
	bustest.Publish(t, cfg, env)
	// Rejected without requeue, as the broker treats a message past the delivery limit.
	eventually(t, 5*time.Second, "the message in the service queue", func() bool {
		m, ok, err := ch.Get(cfg.ServiceQueue(), false)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if err := m.Reject(false); err != nil {
				t.Fatal(err)
			}
		}
		return ok
	})
	dead := bustest.Read(t, ch, cfg.DeadLetterQueue(), 1, 5*time.Second)[0]
	if got := decodeDelivery(t, dead).EventID; got != env.EventID {
		t.Errorf("dead letter %s, want the rejected event %s", got, env.EventID)
	}
}
