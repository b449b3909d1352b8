package bus

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/videotpl/platform/gen/events"
)

// Metrics observes message handling by event type. Handled and Failed count attempts;
// DeadLettered counts messages given up on.
type Metrics interface {
	Handled(eventType string)
	Failed(eventType string)
	DeadLettered(eventType string)
}

type noMetrics struct{}

func (noMetrics) Handled(string)      {}
func (noMetrics) Failed(string)       {}
func (noMetrics) DeadLettered(string) {}

// OtherEventType is the event_type label of a message whose type is not in the event
// catalogue (nor among the names given with WithEventTypes): a consumer may receive any
// routing key or header, and the label set must stay bounded.
const OtherEventType = "other"

// PrometheusMetrics counts into bus_messages_{handled,failed,dead_lettered}_total{event_type}
// and bus_messages_dropped_total{event_type,reason} (transient messages, NewTransientRouter),
// and times attempts in bus_message_handling_duration_seconds{event_type,outcome}.
//
// The event_type label is a name of the event catalogue (gen/events), one given with
// WithEventTypes, or OtherEventType. The failure counters (failed, dead-lettered, dropped by
// reason) are exported at zero for every such name from the start, so that a dashboard or an
// alert sees 0 rather than no series.
type PrometheusMetrics struct {
	known                                  map[string]bool
	handled, failed, deadLettered, dropped *prometheus.CounterVec
	duration                               *prometheus.HistogramVec
}

// MetricsOption adjusts NewPrometheusMetrics.
type MetricsOption func(*PrometheusMetrics)

// WithEventTypes adds names that are not in the event catalogue but that the service
// consumes (commands such as content's preview job), so that they are labelled as
// themselves rather than as OtherEventType.
func WithEventTypes(names ...string) MetricsOption {
	return func(m *PrometheusMetrics) {
		for _, n := range names {
			m.known[n] = true
		}
	}
}

// NewPrometheusMetrics registers the counters on reg.
func NewPrometheusMetrics(reg prometheus.Registerer, opts ...MetricsOption) (*PrometheusMetrics, error) {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"event_type"})
	}
	m := &PrometheusMetrics{
		known:        map[string]bool{OtherEventType: true},
		handled:      counter("bus_messages_handled_total", "Handler attempts that succeeded."),
		failed:       counter("bus_messages_failed_total", "Handler attempts that returned an error or panicked."),
		deadLettered: counter("bus_messages_dead_lettered_total", "Messages published to the dead-letter queue."),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bus_messages_dropped_total",
			Help: "Transient messages (progress ticks) dropped because they were invalid or their handler failed; never retried or dead-lettered."},
			[]string{"event_type", "reason"}),
		duration: newDurationHistogram(),
	}
	for _, n := range events.Names() {
		m.known[n] = true
	}
	for _, o := range opts {
		o(m)
	}
	for _, c := range []prometheus.Collector{m.handled, m.failed, m.deadLettered, m.dropped, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for t := range m.known {
		m.failed.WithLabelValues(t)
		m.deadLettered.WithLabelValues(t)
		if transient(t) {
			for _, r := range []string{DropInvalidEnvelope, DropInvalidPayload, DropFailed} {
				m.dropped.WithLabelValues(t, r)
			}
		}
	}
	return m, nil
}

// transient reports whether messages of type t may be dropped (NewTransientRouter): those of
// a channel whose exchange is not durable, and any other type.
func transient(t string) bool {
	ch, ok := events.ChannelOf(t)
	return (ok && !ch.Durable) || t == OtherEventType
}

// EventTypeLabel is the event_type label value of t: t itself when it is known, otherwise
// OtherEventType.
func (m *PrometheusMetrics) EventTypeLabel(t string) string {
	if m.known[t] {
		return t
	}
	return OtherEventType
}

func (m *PrometheusMetrics) Handled(t string) { m.handled.WithLabelValues(m.EventTypeLabel(t)).Inc() }
func (m *PrometheusMetrics) Failed(t string)  { m.failed.WithLabelValues(m.EventTypeLabel(t)).Inc() }
func (m *PrometheusMetrics) DeadLettered(t string) {
	m.deadLettered.WithLabelValues(m.EventTypeLabel(t)).Inc()
}

// Dropped implements DropCounter.
func (m *PrometheusMetrics) Dropped(t, reason string) {
	m.dropped.WithLabelValues(m.EventTypeLabel(t), reason).Inc()
}
