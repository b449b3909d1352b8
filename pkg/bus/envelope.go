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
)

// Message metadata keys (AMQP headers on the wire).
const (
	MetaEventType   = "event_type"
	MetaTenantID    = "tenant_id"
	MetaTraceparent = "traceparent"
)

// Envelope is the JSON envelope of every event (seed 001). Data stays raw: consumers
// decode and validate it with the generated payload types of gen/events.
type Envelope struct {
	EventID       uuid.UUID       `json:"event_id"`
	EventType     string          `json:"event_type"`
	EventTime     time.Time       `json:"event_time"`
	TenantID      uuid.UUID       `json:"tenant_id"`
	Data          json.RawMessage `json:"data"`
	UserID        *uuid.UUID      `json:"user_id,omitempty"`
	TraceID       *uuid.UUID      `json:"trace_id,omitempty"`
	CorrelationID *uuid.UUID      `json:"correlation_id,omitempty"`
	Producer      string          `json:"producer,omitempty"`
}

// NewEnvelope wraps data (marshalled to JSON) in an envelope with a fresh UUIDv7 event id
// and the current UTC time.
func NewEnvelope(eventType string, tenantID uuid.UUID, data any) (Envelope, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Envelope{}, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("marshal %s data: %w", eventType, err)
	}
	return Envelope{
		EventID:   id,
		EventType: eventType,
		EventTime: time.Now().UTC(),
		TenantID:  tenantID,
		Data:      raw,
	}, nil
}

// Validate checks the fields the envelope requires.
func (e Envelope) Validate() error {
	var errs []error
	if e.EventID == uuid.Nil {
		errs = append(errs, errors.New("event_id is required"))
	}
	if e.EventType == "" {
		errs = append(errs, errors.New("event_type is required"))
	}
	if e.EventTime.IsZero() {
		errs = append(errs, errors.New("event_time is required"))
	}
	if e.TenantID == uuid.Nil {
		errs = append(errs, errors.New("tenant_id is required"))
	}
	if !bytes.HasPrefix(bytes.TrimSpace(e.Data), []byte("{")) {
		errs = append(errs, errors.New("data must be a JSON object"))
	}
	return errors.Join(errs...)
}

// Message turns the envelope into a watermill message: UUID = event_id, metadata
// event_type, tenant_id and the W3C traceparent of ctx. When ctx carries a span and the
// envelope has no trace_id, the trace id fills it (both are 16 bytes).
func (e Envelope) Message(ctx context.Context) (*message.Message, error) {
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("envelope %s: %w", e.EventType, err)
	}
	if sc := trace.SpanContextFromContext(ctx); e.TraceID == nil && sc.HasTraceID() {
		id := uuid.UUID(sc.TraceID())
		e.TraceID = &id
	}
	payload, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	msg := message.NewMessage(e.EventID.String(), payload)
	msg.Metadata.Set(MetaEventType, e.EventType)
	msg.Metadata.Set(MetaTenantID, e.TenantID.String())
	propagation.TraceContext{}.Inject(ctx, propagation.MapCarrier(msg.Metadata))
	msg.SetContext(ctx)
	return msg, nil
}

// Decode reads and validates the envelope of msg.
func Decode(msg *message.Message) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(msg.Payload, &e); err != nil {
		return Envelope{}, fmt.Errorf("decode envelope: %w", err)
	}
	if err := e.Validate(); err != nil {
		return Envelope{}, fmt.Errorf("invalid envelope: %w", err)
	}
	return e, nil
}

// ContextWithTrace returns msg's context carrying the remote span of its traceparent
// metadata, so a handler's spans join the producer's trace.
func ContextWithTrace(msg *message.Message) context.Context {
	return propagation.TraceContext{}.Extract(msg.Context(), propagation.MapCarrier(msg.Metadata))
}

// PublishEvents publishes each envelope to its event type (the routing key on the events
// exchange).
func PublishEvents(ctx context.Context, pub message.Publisher, envs ...Envelope) error {
	for _, e := range envs {
		msg, err := e.Message(ctx)
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
