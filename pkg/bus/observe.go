package bus

import (
	"context"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/gen/events"
)

// DurationObserver is implemented by Metrics that also time handler attempts
// (PrometheusMetrics does). outcome is "ok" or "error".
type DurationObserver interface {
	ObserveDuration(eventType, outcome string, d time.Duration)
}

// Outcomes of a handler attempt in bus_message_handling_duration_seconds.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
)

func newDurationHistogram() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bus_message_handling_duration_seconds",
		Help:    "Time of one handler attempt, by event type and outcome (ok, error).",
		Buckets: prometheus.DefBuckets,
	}, []string{"event_type", "outcome"})
}

// ObserveDuration implements DurationObserver.
func (m *PrometheusMetrics) ObserveDuration(eventType, outcome string, d time.Duration) {
	m.duration.WithLabelValues(m.EventTypeLabel(eventType), outcome).Observe(d.Seconds())
}

func observeDuration(m Metrics, eventType string, err error, d time.Duration) {
	o, ok := m.(DurationObserver)
	if !ok {
		return
	}
	outcome := OutcomeOK
	if err != nil {
		outcome = OutcomeError
	}
	o.ObserveDuration(eventType, outcome, d)
}

// tracerName names the spans of the bus in the global tracer provider (telemetry.Setup
// installs the service's).
const tracerName = "github.com/videotpl/platform/pkg/bus"

// startConsumerSpan starts the consumer span of a message as a child of the producer's
// span (its traceparent), so the handler's work joins the trace of the request that
// published the event.
func startConsumerSpan(msg *message.Message, env events.EventEnvelope) (context.Context, trace.Span) {
	ctx, span := otel.Tracer(tracerName).Start(ContextWithTrace(msg), "consume "+env.EventType,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "rabbitmq"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.message.id", env.EventID.String()),
			attribute.String("event_type", env.EventType),
		))
	return ctx, span
}

func endConsumerSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "handler failed")
	}
}
