package bus

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/videotpl/platform/gen/events"
)

// NewRouter returns a watermill router whose handlers are wrapped, outermost first, in:
// dead-lettering (a message that still fails is published to cfg.DeadLetterQueue() on
// dlq with the reason in its headers, then acked so the consumer keeps going),
// retry with exponential backoff (skipped for Permanent errors), metrics (m may be nil)
// and panic recovery. A failed publish of the dead letter nacks the message instead, so it
// is redelivered rather than lost.
func NewRouter(cfg Config, dlq message.Publisher, m Metrics, log *slog.Logger) (*message.Router, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needService); err != nil {
		return nil, err
	}
	if m == nil {
		m = noMetrics{}
	}
	logger := watermill.NewSlogLogger(log)
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: 30 * time.Second}, logger)
	if err != nil {
		return nil, err
	}
	r.AddMiddleware(
		deadLetter(deadLetters{pub: dlq, queue: cfg.DeadLetterQueue(), metrics: m, log: log}),
		middleware.Retry{
			MaxRetries:          cfg.Retry.MaxRetries,
			InitialInterval:     cfg.Retry.InitialInterval,
			MaxInterval:         cfg.Retry.MaxInterval,
			Multiplier:          2,
			RandomizationFactor: 0.2,
			ShouldRetry:         func(p middleware.RetryParams) bool { return !IsPermanent(p.Err) },
			Logger:              logger,
		}.Middleware,
		observe(m),
		middleware.Recoverer,
	)
	return r, nil
}

func eventType(msg *message.Message) string {
	if t := msg.Metadata.Get(MetaEventType); t != "" {
		return t
	}
	return "unknown"
}

// observe counts each attempt and numbers it in the message's metadata.
func observe(m Metrics) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			n, _ := strconv.Atoi(msg.Metadata.Get(MetaDeadLetterAttempts))
			msg.Metadata.Set(MetaDeadLetterAttempts, strconv.Itoa(n+1))
			start := time.Now()
			out, err := h(msg)
			observeDuration(m, eventType(msg), err, time.Since(start))
			if err != nil {
				m.Failed(eventType(msg))
			} else {
				m.Handled(eventType(msg))
			}
			return out, err
		}
	}
}

func deadLetter(dl deadLetters) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			if err == nil {
				return out, nil
			}
			if msg.Context().Err() != nil {
				return out, err // shutting down: nack, the broker redelivers it
			}
			if derr := dl.send(msg, err, message.HandlerNameFromCtx(msg.Context())); derr != nil {
				return out, errors.Join(err, derr)
			}
			return out, nil
		}
	}
}

// HandlerFunc handles one decoded event. ctx carries the producer's trace.
type HandlerFunc func(ctx context.Context, env events.EventEnvelope) error

// Handlers maps event types (exact names, e.g. "render.job.completed.v1") to handlers.
type Handlers map[string]HandlerFunc

// Consume adds h to r under name. With a *Subscriber (one AMQP queue per service) a single
// handler consumes the queue and dispatches by event_type; with any other subscriber
// (GoChannel) there is one handler per event type, subscribed to its topic.
//
// A message whose envelope is invalid is dead-lettered without retries; an event type
// with no handler (a binding pattern matched more than the service handles) is acked.
func Consume(r *message.Router, name string, sub message.Subscriber, h Handlers) {
	if s, ok := sub.(*Subscriber); ok {
		r.AddConsumerHandler(name, s.Queue(), sub, h.handle)
		return
	}
	for t := range h {
		r.AddConsumerHandler(name+"."+t, t, sub, h.handle)
	}
}

func (h Handlers) handle(msg *message.Message) error {
	env, err := Decode(msg)
	if err != nil {
		return Permanent(invalidEnvelopeError{err})
	}
	fn, ok := h[env.EventType]
	if !ok {
		return nil
	}
	if msg.Metadata.Get(MetaEventType) == "" {
		// A producer that sent no event_type header: the metrics and a dead letter name the
		// event all the same (only types with a handler, so the label values stay bounded).
		msg.Metadata.Set(MetaEventType, env.EventType)
	}
	ctx, span := startConsumerSpan(msg, env)
	defer span.End()
	err = fn(ctx, env)
	endConsumerSpan(span, err)
	return err
}
