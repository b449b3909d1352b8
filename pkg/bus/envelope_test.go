package bus_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
)

func TestEnvelopeRoundTripsThroughAMessage(t *testing.T) {
	user, corr := uuid.New(), uuid.New()
	env := envelope(t, "identity.user.registered.v1", map[string]any{"register_mode": "Email"})
	env.UserID, env.CorrelationID = &user, &corr

	traceID := trace.TraceID(uuid.New())
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: trace.SpanID{9}, TraceFlags: trace.FlagsSampled,
	}))
	msg, err := bus.Message(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if msg.UUID != env.EventID.String() {
		t.Errorf("message uuid %s, want the event id %s", msg.UUID, env.EventID)
	}
	got, err := bus.Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got.EventID != env.EventID || !got.EventTime.Equal(env.EventTime) || *got.UserID != user ||
		*got.CorrelationID != corr || got.Producer == nil || *got.Producer != events.ProducerRenderOrchestrator || string(got.Data) != `{"register_mode":"Email"}` {
		t.Errorf("decoded %+v, want %+v", got, env)
	}
	if got.TraceID == nil || *got.TraceID != uuid.UUID(traceID) {
		t.Errorf("trace_id %v, want %s", got.TraceID, traceID)
	}
	if got.EventTime.Location() != time.UTC {
		t.Errorf("event_time %s is not UTC", got.EventTime)
	}

	// The consumer side: the producer's span is the remote parent of the handler's context.
	received := message.NewMessage(msg.UUID, msg.Payload)
	received.Metadata = msg.Metadata
	if sc := trace.SpanContextFromContext(bus.ContextWithTrace(received)); sc.TraceID() != traceID || !sc.IsRemote() {
		t.Errorf("handler context trace %s (remote %v), want %s", sc.TraceID(), sc.IsRemote(), traceID)
	}
}

func TestDecodeRefusesInvalidEnvelopes(t *testing.T) {
	valid := `"event_id":"` + uuid.NewString() + `","event_type":"render.job.queued.v1","event_time":"2026-01-02T03:04:05Z","tenant_id":"` + uuid.NewString() + `"`
	tests := []struct {
		name, payload, complaint string
	}{
		{"not JSON", `render.job.queued.v1`, "decode envelope"},
		{"no event id", `{"event_type":"x.v1","event_time":"2026-01-02T03:04:05Z","tenant_id":"` + uuid.NewString() + `","data":{}}`, "event_id: is required"},
		{"no tenant", `{"event_id":"` + uuid.NewString() + `","event_type":"x.v1","event_time":"2026-01-02T03:04:05Z","data":{}}`, "tenant_id: is required"},
		{"an empty event type", `{"event_id":"` + uuid.NewString() + `","event_type":"","event_time":"2026-01-02T03:04:05Z","tenant_id":"` + uuid.NewString() + `","data":{}}`, "event_type is required"},
		{"data is not an object", `{` + valid + `,"data":[1]}`, "data: must be an object"},
		{"data is missing", `{` + valid + `}`, "data: is required"},
		{"event_id is not a uuid", `{"event_id":"42"}`, "event_id: must be a uuid"},
		{"a producer the document does not know", `{` + valid + `,"data":{},"producer":"someone"}`, "producer: must be one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bus.Decode(message.NewMessage("m", []byte(tt.payload)))
			if err == nil || !strings.Contains(err.Error(), tt.complaint) {
				t.Errorf("Decode error %v, want one saying %q", err, tt.complaint)
			}
		})
	}
	if _, err := bus.Decode(message.NewMessage("m", []byte(`{`+valid+`,"data":{"a":1}}`))); err != nil {
		t.Errorf("a valid envelope was refused: %v", err)
	}
}

func TestPermanentErrorsAreRecognisedThroughWrapping(t *testing.T) {
	base := context.Canceled
	if bus.IsPermanent(base) {
		t.Error("a plain error counts as permanent")
	}
	wrapped := fmt.Errorf("apply: %w", bus.Permanent(base))
	if !bus.IsPermanent(wrapped) {
		t.Error("a wrapped permanent error is not recognised")
	}
	if bus.Permanent(nil) != nil {
		t.Error("Permanent(nil) is not nil")
	}
}

func TestGoChannelDispatchesEventsToTheirHandlersInOneProcess(t *testing.T) {
	cfg := bus.Config{Service: "inproc"}
	log := testLogger(t)
	gc := bus.NewGoChannel(log)
	t.Cleanup(func() { _ = gc.Close() })
	router, err := bus.NewRouter(cfg, gc, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 2)
	handle := func(_ context.Context, env events.EventEnvelope) error { got <- env.EventType; return nil }
	bus.Consume(router, "inproc", gc, bus.Handlers{
		"content.template.published.v1":    handle,
		"content.svg_preview.generated.v1": handle,
	})
	runRouter(t, router)

	for _, et := range []string{"content.svg_preview.generated.v1", "content.template.published.v1"} {
		if err := bus.PublishEvents(context.Background(), gc, envelope(t, et, map[string]any{})); err != nil {
			t.Fatal(err)
		}
		select {
		case h := <-got:
			if h != et {
				t.Errorf("handler of %s received %s", et, h)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s not handled", et)
		}
	}
}

func TestAnEnvelopeThatTheConsumersWouldRefuseIsNotPublished(t *testing.T) {
	for name, mutate := range map[string]func(*events.EventEnvelope){
		"no event type":         func(e *events.EventEnvelope) { e.EventType = "" },
		"no tenant":             func(e *events.EventEnvelope) { e.TenantID = uuid.Nil },
		"data is not an object": func(e *events.EventEnvelope) { e.Data = []byte(`[1]`) },
		"data is missing":       func(e *events.EventEnvelope) { e.Data = nil },
	} {
		t.Run(name, func(t *testing.T) {
			env := envelope(t, "render.job.queued.v1", map[string]any{})
			mutate(&env)
			if _, err := bus.Message(context.Background(), env); err == nil {
				t.Error("the envelope became a message")
			}
		})
	}
}
