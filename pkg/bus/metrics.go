package bus

import "github.com/prometheus/client_golang/prometheus"

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

// PrometheusMetrics counts into bus_messages_{handled,failed,dead_lettered}_total{event_type}
// and bus_messages_dropped_total{event_type,reason} (transient messages, NewTransientRouter),
// and times attempts in bus_message_handling_duration_seconds{event_type,outcome}.
type PrometheusMetrics struct {
	handled, failed, deadLettered, dropped *prometheus.CounterVec
	duration                               *prometheus.HistogramVec
}

// NewPrometheusMetrics registers the counters on reg.
func NewPrometheusMetrics(reg prometheus.Registerer) (*PrometheusMetrics, error) {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"event_type"})
	}
	m := &PrometheusMetrics{
		handled:      counter("bus_messages_handled_total", "Handler attempts that succeeded."),
		failed:       counter("bus_messages_failed_total", "Handler attempts that returned an error or panicked."),
		deadLettered: counter("bus_messages_dead_lettered_total", "Messages published to the dead-letter queue."),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bus_messages_dropped_total",
			Help: "Transient messages (progress ticks) dropped because they were invalid or their handler failed; never retried or dead-lettered."},
			[]string{"event_type", "reason"}),
		duration: newDurationHistogram(),
	}
	for _, c := range []prometheus.Collector{m.handled, m.failed, m.deadLettered, m.dropped, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *PrometheusMetrics) Handled(t string)      { m.handled.WithLabelValues(t).Inc() }
func (m *PrometheusMetrics) Failed(t string)       { m.failed.WithLabelValues(t).Inc() }
func (m *PrometheusMetrics) DeadLettered(t string) { m.deadLettered.WithLabelValues(t).Inc() }

// Dropped implements DropCounter.
func (m *PrometheusMetrics) Dropped(t, reason string) { m.dropped.WithLabelValues(t, reason).Inc() }
