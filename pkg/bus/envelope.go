package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/gen/events"
)

// Message metadata keys (AMQP headers on the wire).
const (
	MetaEventType   = "event_type"
	MetaTenantID    = "tenant_id"
	MetaTraceparent = "traceparent"
)

// NewEnvelope wraps data (marshalled to JSON) in an envelope of eventType with a fresh
// UUIDv7 event id and the current UTC time. For an event of the AsyncAPI document,
// events.NewEvent also validates the payload and sets the producer; NewEnvelope serves the
// messages the document does not declare, such as a service's commands to itself.
func NewEnvelope(eventType string, tenantID uuid.UUID, data any) (events.EventEnvelope, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return events.EventEnvelope{}, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return events.EventEnvelope{}, fmt.Errorf("marshal %s data: %w", eventType, err)
	}
	return events.EventEnvelope{
		EventID:   id,
		EventType: eventType,
		EventTime: time.Now().UTC(),
		TenantID:  tenantID,
		Data:      raw,
	}, nil
}

// validate checks the envelope schema's required fields and what the bus routes by: an
// event type (the routing key) and data that is a JSON object.
func validate(e events.EventEnvelope) error {
	var errs []error
	if err := e.Validate(); err != nil {
		errs = append(errs, err)
	}
	if e.EventType == "" {
		errs = append(errs, errors.New("event_type is required"))
	}
	if len(e.Data) > 0 && !bytes.HasPrefix(bytes.TrimSpace(e.Data), []byte("{")) {
		errs = append(errs, errors.New("data must be a JSON object"))
	}
	return errors.Join(errs...)
}

// Message turns env into a watermill message: UUID = event_id, metadata event_type,
// tenant_id and the W3C traceparent of ctx. When ctx carries a span and env has no
// trace_id, the trace id fills it (both are 16 bytes).
func Message(ctx context.Context, env events.EventEnvelope) (*message.Message, error) {
	if err := validate(env); err != nil {
		return nil, fmt.Errorf("envelope %s: %w", env.EventType, err)
	}
	if sc := trace.SpanContextFromContext(ctx); env.TraceID == nil && sc.HasTraceID() {
		id := uuid.UUID(sc.TraceID())
		env.TraceID = &id
	}
	payload, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	msg := message.NewMessage(env.EventID.String(), payload)
	msg.Metadata.Set(MetaEventType, env.EventType)
	msg.Metadata.Set(MetaTenantID, env.TenantID.String())
	propagation.TraceContext{}.Inject(ctx, propagation.MapCarrier(msg.Metadata))
	msg.SetContext(ctx)
	return msg, nil
}

// Decode reads the envelope of msg and validates it against the envelope schema; data
// stays raw for the handler to decode with its payload type.
func Decode(msg *message.Message) (events.EventEnvelope, error) {
	var env events.EventEnvelope
	if err := env.UnmarshalJSON(msg.Payload); err != nil {
		return events.EventEnvelope{}, fmt.Errorf("decode envelope: %w", err)
	}
	if env.EventType == "" {
		return events.EventEnvelope{}, errors.New("decode envelope: event_type is required")
	}
	return env, nil
}

// ContextWithTrace returns msg's context carrying the remote span of its traceparent
// metadata, so a handler's spans join the producer's trace.
func ContextWithTrace(msg *message.Message) context.Context {
	return propagation.TraceContext{}.Extract(msg.Context(), propagation.MapCarrier(msg.Metadata))
}

// PublishEvents publishes each envelope to its event type (the routing key on the events
// exchange).
func PublishEvents(ctx context.Context, pub message.Publisher, envs ...events.EventEnvelope) error {
	for _, e := range envs {
		msg, err := Message(ctx, e)
		if err != nil {
			return err
		}
		if err := pub.Publish(e.EventType, msg); err != nil {
			return fmt.Errorf("publish %s: %w", e.EventType, err)
		}
	}
	return nil
}

// ProgressRoutingKey is the topic (routing key) of a job's progress events on the
// progress exchange.
func ProgressRoutingKey(jobID uuid.UUID) string { return "render.job.progress." + jobID.String() }
