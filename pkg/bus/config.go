package bus

import (
	"fmt"
	"strings"
	"time"
)

// Config configures the bus of one service. Services fill it from their environment
// (EnvConfig); the package reads no environment itself. The names are required by the parts
// that use them; other zero fields take the defaults documented on them.
type Config struct {
	// AMQPURL is the broker, e.g. amqp://guest:guest@127.0.0.1:5672/.
	AMQPURL string
	// Service names the service's queues: <Service>.events, <Service>.dead-letter and
	// <Service>.progress.<instance>. Required for subscribers and dead letters.
	Service string

	// EventsExchange is the durable topic exchange of all events (seed 001: "events").
	EventsExchange string
	// ProgressExchange is the auto-delete fanout exchange of job progress (seed 001:
	// "render.progress").
	ProgressExchange string
	// DeadLetterExchange is the durable direct exchange the dead-letter queues hang off.
	DeadLetterExchange string

	// QueueType is the type of the service's durable queues (<Service>.events and
	// <Service>.dead-letter): QueueQuorum (the zero value) or QueueClassic. Exclusive
	// per-instance queues are always classic: a quorum queue cannot be exclusive.
	QueueType QueueType

	// Prefetch is the AMQP QoS prefetch count per consumer (default 10; a BatchConsumer's
	// default is 4 batches).
	Prefetch int

	Retry  RetryConfig
	Outbox OutboxConfig
}

// RetryConfig is the in-process retry of a failing handler before its message is
// dead-lettered.
type RetryConfig struct {
	// MaxRetries after the first attempt (0: none).
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
	// AckDeadline bounds one attempt to forward a batch of rows (up to 256, published and
	// confirmed together); the rows not confirmed by then are read again (default 30s).
	AckDeadline time.Duration
}

func (c Config) withDefaults() Config {
	defDur := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Prefetch == 0 {
		c.Prefetch = 10
	}
	c.Retry.MaxRetries = max(c.Retry.MaxRetries, 0)
	defDur(&c.Retry.InitialInterval, 100*time.Millisecond)
	defDur(&c.Retry.MaxInterval, 10*time.Second)
	defDur(&c.Outbox.PollInterval, 100*time.Millisecond)
	defDur(&c.Outbox.ResendInterval, time.Second)
	defDur(&c.Outbox.AckDeadline, 30*time.Second)
	return c
}

// Names of the Config fields a part of the bus may require.
const (
	needService            = "Service"
	needEventsExchange     = "EventsExchange"
	needProgressExchange   = "ProgressExchange"
	needDeadLetterExchange = "DeadLetterExchange"
)

// QueueType is the type of a durable queue, the x-queue-type RabbitMQ declares it with.
type QueueType string

// Queue types.
const (
	// QueueQuorum is a replicated queue (Raft), RabbitMQ's durable queue type for data that
	// must not be lost. It is always durable, never exclusive or auto-delete.
	QueueQuorum QueueType = "quorum"
	// QueueClassic is a single-node queue, for a broker where quorum queues are unwanted.
	QueueClassic QueueType = "classic"
)

// queueType is c's queue type, quorum when unset.
func (c Config) queueType() (QueueType, error) {
	switch c.QueueType {
	case "", QueueQuorum:
		return QueueQuorum, nil
	case QueueClassic:
		return QueueClassic, nil
	}
	return "", fmt.Errorf("bus: queue type %q: want %q or %q", c.QueueType, QueueQuorum, QueueClassic)
}

// require reports the named fields that are empty: an empty exchange name would be the
// broker's default exchange, which routes by queue name and would lose the messages.
func (c Config) require(fields ...string) error {
	values := map[string]string{needService: c.Service, needEventsExchange: c.EventsExchange,
		needProgressExchange: c.ProgressExchange, needDeadLetterExchange: c.DeadLetterExchange}
	var missing []string
	for _, f := range fields {
		if values[f] == "" {
			missing = append(missing, "Config."+f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("bus: %s required", strings.Join(missing, ", "))
	}
	_, err := c.queueType()
	return err
}

// ServiceQueue is the durable queue a service consumes its events from.
func (c Config) ServiceQueue() string { return c.Service + ".events" }

// DeadLetterQueue is the durable queue of the service's messages that could not be handled.
func (c Config) DeadLetterQueue() string { return c.Service + ".dead-letter" }
