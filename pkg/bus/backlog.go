package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"
)

// Defaults of BacklogOptions.
const (
	DefaultBacklogTimeout     = 3 * time.Second
	DefaultBacklogMinInterval = 5 * time.Second
)

// BacklogOptions tune a BacklogCollector. The zero value watches the service's queues
// (Config.ServiceQueue, Config.DeadLetterQueue) and the outbox of the pool.
type BacklogOptions struct {
	// Queues overrides the queues whose depth is sampled.
	Queues []string
	// Timeout bounds one sample (broker and database together); default DefaultBacklogTimeout.
	Timeout time.Duration
	// MinInterval is the shortest time between two samples: scrapes in between get the last
	// sample, so many scrapers cannot load the broker; default DefaultBacklogMinInterval.
	MinInterval time.Duration
}

// BacklogCollector is a prometheus.Collector that samples, when scraped, what is waiting:
//
//	bus_queue_messages{queue}                 messages ready in a queue: the consumer lag of
//	                                          <service>.events, the depth of <service>.dead-letter
//	bus_queue_consumers{queue}                consumers attached to the queue
//	bus_outbox_messages                       rows in watermill_outbox not yet forwarded
//	bus_outbox_oldest_message_age_seconds     age of the oldest of them (0 when empty)
//	bus_backlog_up{source="amqp"|"postgres"}  1 when the last sample of that source succeeded
//
// A queue that does not exist (the service has not consumed yet) is left out. The broker
// connection is dialled on the first scrape and kept; Close releases it.
type BacklogCollector struct {
	cfg  Config
	pool *pgxpool.Pool
	log  *slog.Logger
	opts BacklogOptions

	queueMessages, queueConsumers, outboxMessages, outboxAge, up *prometheus.Desc

	mu      sync.Mutex
	conn    *amqp.Connection
	sampled time.Time
	last    []prometheus.Metric
}

// NewBacklogCollector builds the collector of cfg's queues (none when cfg.AMQPURL or
// cfg.Service is empty and opts.Queues is not set) and of pool's outbox (none when pool is
// nil), and registers it on reg. Close it when the service stops.
func NewBacklogCollector(cfg Config, pool *pgxpool.Pool, reg prometheus.Registerer, log *slog.Logger, opts BacklogOptions) (*BacklogCollector, error) {
	cfg = cfg.withDefaults()
	if opts.Queues == nil && cfg.Service != "" {
		opts.Queues = []string{cfg.ServiceQueue(), cfg.DeadLetterQueue()}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultBacklogTimeout
	}
	if opts.MinInterval <= 0 {
		opts.MinInterval = DefaultBacklogMinInterval
	}
	if log == nil {
		log = slog.Default()
	}
	c := &BacklogCollector{
		cfg: cfg, pool: pool, log: log, opts: opts,
		queueMessages: prometheus.NewDesc("bus_queue_messages",
			"Messages ready in the queue (consumer lag of <service>.events, depth of <service>.dead-letter), sampled.",
			[]string{"queue"}, nil),
		queueConsumers: prometheus.NewDesc("bus_queue_consumers",
			"Consumers attached to the queue, sampled.", []string{"queue"}, nil),
		outboxMessages: prometheus.NewDesc("bus_outbox_messages",
			"Events written to the outbox and not yet forwarded to the broker, sampled.", nil, nil),
		outboxAge: prometheus.NewDesc("bus_outbox_oldest_message_age_seconds",
			"Age of the oldest event waiting in the outbox (0 when it is empty), sampled.", nil, nil),
		up: prometheus.NewDesc("bus_backlog_up",
			"1 when the last backlog sample of the source (amqp, postgres) succeeded.", []string{"source"}, nil),
	}
	if reg != nil {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("bus: register backlog collector: %w", err)
		}
	}
	return c, nil
}

// Describe implements prometheus.Collector.
func (c *BacklogCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.queueMessages, c.queueConsumers, c.outboxMessages, c.outboxAge, c.up} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it samples at most once per MinInterval.
func (c *BacklogCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil || time.Since(c.sampled) >= c.opts.MinInterval {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		c.last = c.sample(ctx)
		cancel()
		c.sampled = time.Now()
	}
	for _, m := range c.last {
		ch <- m
	}
}

// Close drops the broker connection.
func (c *BacklogCollector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop()
	return nil
}

func (c *BacklogCollector) sample(ctx context.Context) []prometheus.Metric {
	var out []prometheus.Metric
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		if m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, v, labels...); err == nil {
			out = append(out, m)
		}
	}
	upValue := func(err error) float64 {
		if err != nil {
			return 0
		}
		return 1
	}
	if len(c.opts.Queues) > 0 && c.cfg.AMQPURL != "" {
		queues, err := c.inspectQueues()
		if err != nil {
			c.log.WarnContext(ctx, "backlog: sample queues", slog.String("error", err.Error()))
		}
		for _, q := range queues {
			gauge(c.queueMessages, float64(q.Messages), q.Name)
			gauge(c.queueConsumers, float64(q.Consumers), q.Name)
		}
		gauge(c.up, upValue(err), "amqp")
	}
	if c.pool != nil {
		var n int64
		var age float64
		err := c.pool.QueryRow(ctx, `SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8
			FROM watermill_outbox WHERE NOT acked`).Scan(&n, &age)
		if err != nil {
			c.log.WarnContext(ctx, "backlog: sample outbox", slog.String("error", err.Error()))
		} else {
			gauge(c.outboxMessages, float64(n))
			gauge(c.outboxAge, age)
		}
		gauge(c.up, upValue(err), "postgres")
	}
	return out
}

// inspectQueues reads each queue's counters with a passive declare. A missing queue
// closes the channel (404), so each queue gets its own channel.
func (c *BacklogCollector) inspectQueues() ([]amqp.Queue, error) {
	if c.conn == nil || c.conn.IsClosed() {
		conn, err := amqp.DialConfig(c.cfg.AMQPURL, amqp.Config{
			Heartbeat: 10 * time.Second,
			Locale:    "en_US",
			Dial:      amqp.DefaultDial(c.opts.Timeout),
		})
		if err != nil {
			return nil, fmt.Errorf("connect to AMQP: %w", err)
		}
		c.conn = conn
	}
	var out []amqp.Queue
	for _, name := range c.opts.Queues {
		ch, err := c.conn.Channel()
		if err != nil {
			c.drop()
			return out, fmt.Errorf("open AMQP channel: %w", err)
		}
		q, err := ch.QueueDeclarePassive(name, false, false, false, false, nil)
		var amqpErr *amqp.Error
		switch {
		case err == nil:
			out = append(out, q)
			_ = ch.Close()
		case errors.As(err, &amqpErr) && amqpErr.Code == amqp.NotFound:
			// not declared yet: nothing to report; the broker closed the channel
		default:
			c.drop()
			return out, fmt.Errorf("inspect queue %s: %w", name, err)
		}
	}
	return out, nil
}

func (c *BacklogCollector) drop() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}
