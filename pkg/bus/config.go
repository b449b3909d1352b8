package bus

import (
	"errors"
	"time"
)

// Default names of the topology in seed 001.
const (
	DefaultEventsExchange     = "events"
	DefaultProgressExchange   = "render.progress"
	DefaultDeadLetterExchange = "dead-letter"
)

// Config configures the bus of one service. Services fill it from their environment; the
// package reads no environment itself. Zero fields take the defaults documented on them.
type Config struct {
	// AMQPURL is the broker, e.g. amqp://guest:guest@127.0.0.1:5672/.
	AMQPURL string
	// Service names the service's queues: <Service>.events, <Service>.dead-letter and
	// <Service>.progress.<instance>. Required for subscribers and dead letters.
	Service string

	// EventsExchange is the durable topic exchange of all events (default "events").
	EventsExchange string
	// ProgressExchange is the auto-delete fanout exchange of job progress (default "render.progress").
	ProgressExchange string
	// DeadLetterExchange is the durable direct exchange the dead-letter queues hang off
	// (default "dead-letter").
	DeadLetterExchange string

	// Prefetch is the AMQP QoS prefetch count per consumer (default 10).
	Prefetch int

	Retry  RetryConfig
	Outbox OutboxConfig
}

// RetryConfig is the in-process retry of a failing handler before its message is
// dead-lettered.
type RetryConfig struct {
	// MaxRetries after the first attempt (default 5; negative means none).
	MaxRetries int
	// InitialInterval is the first backoff (default 100ms); it doubles up to MaxInterval (default 10s).
	InitialInterval time.Duration
	MaxInterval     time.Duration
}

// OutboxConfig tunes the forwarder that moves outbox rows to the broker.
type OutboxConfig struct {
	// PollInterval is how often an idle forwarder looks for new rows (default 100ms).
	PollInterval time.Duration
	// ResendInterval is the pause before publishing a row again after the broker refused
	// it or was unreachable (default 1s).
	ResendInterval time.Duration
	// AckDeadline bounds one attempt to forward a row; after it the row is read again
	// (default 30s).
	AckDeadline time.Duration
}

func (c Config) withDefaults() Config {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	defDur := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.EventsExchange, DefaultEventsExchange)
	def(&c.ProgressExchange, DefaultProgressExchange)
	def(&c.DeadLetterExchange, DefaultDeadLetterExchange)
	if c.Prefetch == 0 {
		c.Prefetch = 10
	}
	switch {
	case c.Retry.MaxRetries == 0:
		c.Retry.MaxRetries = 5
	case c.Retry.MaxRetries < 0:
		c.Retry.MaxRetries = 0
	}
	defDur(&c.Retry.InitialInterval, 100*time.Millisecond)
	defDur(&c.Retry.MaxInterval, 10*time.Second)
	defDur(&c.Outbox.PollInterval, 100*time.Millisecond)
	defDur(&c.Outbox.ResendInterval, time.Second)
	defDur(&c.Outbox.AckDeadline, 30*time.Second)
	return c
}

func (c Config) requireService() error {
	if c.Service == "" {
		return errors.New("bus: Config.Service is required")
	}
	return nil
}

// ServiceQueue is the durable queue a service consumes its events from.
func (c Config) ServiceQueue() string { return c.Service + ".events" }

// DeadLetterQueue is the durable queue of the service's messages that could not be handled.
func (c Config) DeadLetterQueue() string { return c.Service + ".dead-letter" }
