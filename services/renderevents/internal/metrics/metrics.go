// Package metrics exports what the webhook dispatcher and the progress relay of the service
// do as Prometheus metrics. Every label value is known up front and exported at zero, so a
// dashboard or an alert sees 0 rather than no series.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Dispatch implements app.DispatchObserver.
type Dispatch struct {
	deliveries *prometheus.CounterVec
	attempts   *prometheus.CounterVec
	latency    prometheus.Histogram
	errors     *prometheus.CounterVec
}

var _ app.DispatchObserver = (*Dispatch)(nil)

// NewDispatch registers the webhook metrics on reg.
func NewDispatch(reg prometheus.Registerer) (*Dispatch, error) {
	m := &Dispatch{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_deliveries_total",
			Help: "Webhook deliveries handled, by outcome: delivered, retrying (failed, another attempt is scheduled), given_up (failed, retries exhausted), abandoned (not sent: endpoint deleted or disabled, tenant suspended)."},
			[]string{"outcome"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_delivery_attempts_total",
			Help: "HTTP attempts to deliver a webhook, by result: success (2xx), http_error (another status), transport_error (no answer)."},
			[]string{"result"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "webhook_delivery_duration_seconds",
			Help:    "Time a tenant's endpoint took to answer a webhook attempt (up to the 15 s timeout).",
			Buckets: []float64{.025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15}}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_dispatch_errors_total",
			Help: "Errors of the webhook dispatcher itself, by stage: claim (finding due deliveries), record (storing an attempt's outcome; retried after the lease)."},
			[]string{"stage"}),
	}
	for _, c := range []prometheus.Collector{m.deliveries, m.attempts, m.latency, m.errors} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, o := range []string{app.OutcomeDelivered, app.OutcomeRetrying, app.OutcomeGivenUp, app.OutcomeAbandoned} {
		m.deliveries.WithLabelValues(o)
	}
	for _, r := range []string{app.AttemptSucceeded, app.AttemptRejected, app.AttemptTransportError} {
		m.attempts.WithLabelValues(r)
	}
	for _, s := range []string{app.StageClaim, app.StageRecord} {
		m.errors.WithLabelValues(s)
	}
	return m, nil
}

// Attempted implements app.DispatchObserver.
func (m *Dispatch) Attempted(result string, latency time.Duration) {
	m.attempts.WithLabelValues(result).Inc()
	m.latency.Observe(latency.Seconds())
}

// Settled implements app.DispatchObserver.
func (m *Dispatch) Settled(outcome string) { m.deliveries.WithLabelValues(outcome).Inc() }

// Failed implements app.DispatchObserver.
func (m *Dispatch) Failed(stage string) { m.errors.WithLabelValues(stage).Inc() }

// Relay implements app.RelayObserver.
type Relay struct {
	frames *prometheus.CounterVec
	lagged prometheus.Counter
}

var _ app.RelayObserver = (*Relay)(nil)

// FrameEvents are the events of the progress stream's frames.
var FrameEvents = []string{"state", "progress", string(domain.StateCompleted), string(domain.StateFailed), string(domain.StateCancelled)}

// NewRelay registers the progress relay's metrics on reg.
func NewRelay(reg prometheus.Registerer) (*Relay, error) {
	m := &Relay{
		frames: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sse_frames_sent_total",
			Help: "Frames sent on progress streams, by event (state, progress, completed, failed, cancelled); keep-alive comments are not counted."},
			[]string{"event"}),
		lagged: prometheus.NewCounter(prometheus.CounterOpts{Name: "sse_streams_lagged_total",
			Help: "Progress streams ended because their client fell too many frames behind (it reconnects with Last-Event-ID)."}),
	}
	for _, c := range []prometheus.Collector{m.frames, m.lagged} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, e := range FrameEvents {
		m.frames.WithLabelValues(e)
	}
	return m, nil
}

// FrameSent implements app.RelayObserver.
func (m *Relay) FrameSent(event string) { m.frames.WithLabelValues(event).Inc() }

// StreamLagged implements app.RelayObserver.
func (m *Relay) StreamLagged() { m.lagged.Inc() }
