package bus

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
)

// Reasons a transient message is dropped, the reason label of bus_messages_dropped_total.
const (
	// DropInvalidEnvelope: the message is not an event envelope.
	DropInvalidEnvelope = "invalid_envelope"
	// DropInvalidPayload: the handler refused the event as one no retry can fix (Permanent),
	// e.g. data not valid against the AsyncAPI document.
	DropInvalidPayload = "invalid_payload"
	// DropFailed: the handler failed otherwise, or panicked.
	DropFailed = "failed"
)

// DropLogInterval is the least time between two log lines about dropped messages of one
// router; each line tells how many were dropped without a line of their own.
const DropLogInterval = 10 * time.Second

// DropCounter is implemented by Metrics that count dropped transient messages
// (PrometheusMetrics does), by event type and reason (DropInvalidEnvelope ...).
type DropCounter interface {
	Dropped(eventType, reason string)
}

// NewTransientRouter returns a watermill router for messages that are worth nothing once
// late, such as progress ticks. Each message is handled once: when its handler fails (an
// invalid envelope or payload, an error, a panic) the message is dropped: acknowledged,
// counted by event type and reason (m may be nil; see DropCounter) and logged at most once
// per DropLogInterval. It is never retried or dead-lettered, so a producer's bug cannot
// fill a durable queue at the rate of its messages.
func NewTransientRouter(cfg Config, m Metrics, log *slog.Logger) (*message.Router, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needService); err != nil {
		return nil, err
	}
	if m == nil {
		m = noMetrics{}
	}
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: 30 * time.Second}, watermill.NewSlogLogger(log))
	if err != nil {
		return nil, err
	}
	r.AddMiddleware(drop(m, &dropLog{log: log, every: DropLogInterval}), observe(m), middleware.Recoverer)
	return r, nil
}

func drop(m Metrics, dl *dropLog) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			if err == nil {
				return out, nil
			}
			reason := dropReason(err)
			if c, ok := m.(DropCounter); ok {
				c.Dropped(eventType(msg), reason)
			}
			dl.note(msg.Context(), eventType(msg), reason, err)
			return nil, nil
		}
	}
}

func dropReason(err error) string {
	var inv invalidEnvelopeError
	switch {
	case errors.As(err, &inv):
		return DropInvalidEnvelope
	case IsPermanent(err):
		return DropInvalidPayload
	}
	return DropFailed
}

// invalidEnvelopeError marks a message that is not an event envelope.
type invalidEnvelopeError struct{ err error }

func (e invalidEnvelopeError) Error() string { return e.err.Error() }
func (e invalidEnvelopeError) Unwrap() error { return e.err }

// dropLog logs dropped messages at a bounded rate: the first one, then at most one line per
// interval, which counts the ones dropped in between.
type dropLog struct {
	log   *slog.Logger
	every time.Duration

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func (d *dropLog) note(ctx context.Context, eventType, reason string, err error) {
	d.mu.Lock()
	now := time.Now()
	if !d.last.IsZero() && now.Sub(d.last) < d.every {
		d.suppressed++
		d.mu.Unlock()
		return
	}
	unlogged := d.suppressed
	d.last, d.suppressed = now, 0
	d.mu.Unlock()
	d.log.WarnContext(ctx, "transient message dropped", "event_type", eventType, "reason", reason,
		"error", reasonOf(err), "dropped_unlogged", unlogged)
}
