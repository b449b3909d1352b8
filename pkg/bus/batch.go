package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// BatchConfig sizes the batches of a BatchConsumer.
type BatchConfig struct {
	// Size is the most deliveries applied in one transaction.
	Size int
	// Wait is how long a batch waits to fill up after its first delivery.
	Wait time.Duration
	// Concurrency is how many transactions a batch is split into, applied at once, when the
	// applier is a BatchPartitioner (0 or 1: one transaction). The batch is acknowledged
	// after all of them ended, as one batch would be.
	Concurrency int
}

// BatchPartitioner is implemented by a BatchApplier whose events may be applied in
// concurrent transactions: events of one key go to the same transaction, in their order.
// Events of different keys must not depend on each other's order, and should touch
// different rows, or the transactions wait for each other.
type BatchPartitioner[E any] interface {
	PartitionKey(ev E) uint64
}

// BatchApplier is a service's part of a BatchConsumer: reading its events and applying them.
type BatchApplier[E any] interface {
	// Decode reads a delivery's body. An error means no retry can make it valid: the message
	// is dead-lettered at once. skip acknowledges the message without applying it (an event
	// the service keeps nothing of).
	Decode(body []byte) (ev E, skip bool, err error)
	// ApplyBatch applies evs in one transaction that records their ids with
	// HandleBatchOnce, so that a redelivered batch changes nothing.
	ApplyBatch(ctx context.Context, evs []E) error
	// ApplyOne applies one event the same way (HandleOnce); it is the fallback when a batch
	// failed, so that one bad event is isolated. A Permanent error dead-letters the event at
	// once, any other is retried first.
	ApplyOne(ctx context.Context, ev E) error
	// Ping reports whether the database answers: an event that keeps failing while it does
	// not is not to blame, and goes back to the queue instead of the dead-letter queue.
	Ping(ctx context.Context) error
}

// BatchConsumer consumes the service's durable queue <service>.events and applies its
// deliveries in batches, one transaction per batch, or, for a BatchPartitioner, up to
// BatchConfig.Concurrency transactions at once, each with the events of its keys; a batch
// is acknowledged (multiple, in delivery order) once every transaction of it ended. When a
// batch (or one of its transactions) fails, its events are applied one by one with retries
// (Config.Retry): an event that cannot be decoded or applied (Permanent) goes to
// <service>.dead-letter with the reason at once, one that keeps failing after its retries
// too, and the consumer goes on with the next messages. The dead letters carry the headers
// of NewRouter's.
//
// Use it where the events come in volume and one transaction per event would be the
// bottleneck; NewRouter with HandleOnce is simpler otherwise.
type BatchConsumer[E any] struct {
	cfg         Config
	batch       BatchConfig
	keys        []string
	apply       BatchApplier[E]
	deadLetters deadLetters
	metrics     Metrics
	log         *slog.Logger
	ready       chan struct{}
	conn        *ConnState
}

// NewBatchConsumer returns a consumer of cfg's service queue bound with bindingKeys; it
// dead-letters on dlq (NewDeadLetterPublisher); metrics may be nil. Its prefetch is
// cfg.Prefetch, by default 4 batches.
func NewBatchConsumer[E any](cfg Config, batch BatchConfig, apply BatchApplier[E], dlq message.Publisher, metrics Metrics,
	log *slog.Logger, bindingKeys ...string) (*BatchConsumer[E], error) {
	if cfg.Prefetch == 0 {
		cfg.Prefetch = 4 * batch.Size
	}
	cfg = cfg.withDefaults()
	if err := cfg.require(needService, needEventsExchange); err != nil {
		return nil, err
	}
	switch {
	case len(bindingKeys) == 0:
		return nil, errors.New("bus: a batch consumer needs at least one binding key")
	case batch.Size <= 0:
		return nil, fmt.Errorf("bus: the batch size must be positive, not %d", batch.Size)
	case batch.Wait < 0:
		return nil, fmt.Errorf("bus: the batch wait must not be negative, not %s", batch.Wait)
	case batch.Concurrency < 0:
		return nil, fmt.Errorf("bus: the batch concurrency must not be negative, not %d", batch.Concurrency)
	case cfg.Prefetch < batch.Size:
		return nil, fmt.Errorf("bus: a prefetch of %d cannot fill a batch of %d", cfg.Prefetch, batch.Size)
	}
	if metrics == nil {
		metrics = noMetrics{}
	}
	return &BatchConsumer[E]{cfg: cfg, batch: batch, keys: bindingKeys, apply: apply,
		deadLetters: deadLetters{pub: dlq, queue: cfg.DeadLetterQueue(), metrics: metrics, log: log},
		metrics:     metrics, log: log, ready: make(chan struct{}), conn: newConnState()}, nil
}

// Ready is closed once the queue is declared, bound and consumed for the first time.
func (c *BatchConsumer[E]) Ready() <-chan struct{} { return c.ready }

// Connection is the state of the consumer's connection to the broker: up while it
// consumes, down from the first failure until it consumes again.
func (c *BatchConsumer[E]) Connection() *ConnState { return c.conn }

// Run consumes until ctx ends, reconnecting after broker failures. The batch in hand when
// ctx ends is finished and acknowledged; deliveries not acknowledged yet go back to the
// queue when the connection closes.
func (c *BatchConsumer[E]) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		err := c.session(ctx, func() { backoff = 100 * time.Millisecond; c.conn.up() })
		if ctx.Err() != nil {
			return nil //nolint:nilerr // shutting down: the interruption is expected
		}
		c.conn.down(err)
		c.log.WarnContext(ctx, "events consumer interrupted; reconnecting", "error", err, "backoff", backoff)
		if !sleep(ctx, backoff) {
			return nil
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (c *BatchConsumer[E]) session(ctx context.Context, connected func()) error {
	conn, err := Dial(c.cfg.AMQPURL)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("channel: %w", err)
	}
	if err := ch.Qos(c.cfg.Prefetch, 0, false); err != nil {
		return fmt.Errorf("qos: %w", err)
	}
	if err := DeclareServiceQueue(ch, c.cfg, c.keys...); err != nil {
		return err
	}
	queue := c.cfg.ServiceQueue()
	deliveries, err := ch.ConsumeWithContext(ctx, queue, "", false, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("consume %s: %w", queue, err)
	}
	connected()
	select {
	case <-c.ready:
	default:
		close(c.ready)
	}
	c.log.InfoContext(ctx, "consuming events", "queue", queue, "batch", c.batch.Size, "prefetch", c.cfg.Prefetch)
	// The next batch is collected and decoded while this one is applied.
	rctx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	batches := make(chan []decoded[E], 1)
	go c.read(rctx, deliveries, batches)
	for batch := range batches {
		// A batch in hand is finished even when ctx ends, so that it is acknowledged.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		acks := c.process(pctx, batch)
		cancel()
		if err := settle(ch, batch, acks); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return errors.New("delivery channel closed")
}

// decoded is a delivery with what Decode made of its body.
type decoded[E any] struct {
	amqp.Delivery
	ev   E
	skip bool
	err  error
}

// read collects batches and decodes them, handing each to out, until ctx ends or the
// deliveries stop; then it closes out.
func (c *BatchConsumer[E]) read(ctx context.Context, deliveries <-chan amqp.Delivery, out chan<- []decoded[E]) {
	defer close(out)
	for {
		batch := c.collect(ctx, deliveries)
		if len(batch) == 0 {
			return
		}
		dec := make([]decoded[E], len(batch))
		for i, d := range batch {
			dec[i].Delivery = d
			dec[i].ev, dec[i].skip, dec[i].err = c.apply.Decode(d.Body)
		}
		select {
		case out <- dec:
		case <-ctx.Done():
			return
		}
	}
}

// collect waits for one delivery, then takes what arrives within the batch wait, up to
// the batch size.
func (c *BatchConsumer[E]) collect(ctx context.Context, deliveries <-chan amqp.Delivery) []amqp.Delivery {
	var batch []amqp.Delivery
	select {
	case <-ctx.Done():
		return nil
	case d, ok := <-deliveries:
		if !ok {
			return nil
		}
		batch = append(batch, d)
	}
	timer := time.NewTimer(c.batch.Wait)
	defer timer.Stop()
	for len(batch) < c.batch.Size {
		select {
		case d, ok := <-deliveries:
			if !ok {
				return batch
			}
			batch = append(batch, d)
		case <-timer.C:
			return batch
		}
	}
	return batch
}

// process applies a decoded batch and returns, per delivery, whether it may be acknowledged
// (applied, skipped or dead-lettered) or must go back to the queue. The events to apply
// are split by partition key into up to Concurrency transactions, applied at once.
func (c *BatchConsumer[E]) process(ctx context.Context, batch []decoded[E]) []bool {
	acks := make([]bool, len(batch))
	parts := make([][]int, c.partitions())
	for i, d := range batch {
		switch {
		case d.err != nil:
			acks[i] = c.deadLetter(ctx, d.Delivery, Permanent(d.err), 1)
		case d.skip:
			acks[i] = true
		default:
			p := c.partitionOf(d.ev)
			parts[p] = append(parts[p], i)
		}
	}
	var wg sync.WaitGroup
	for _, idx := range parts {
		if len(idx) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.applyPart(ctx, batch, idx, acks) // each part sets the acks of its own deliveries
		}()
	}
	wg.Wait()
	return acks
}

// partitions is the number of transactions a batch is split into.
func (c *BatchConsumer[E]) partitions() int {
	if _, ok := c.apply.(BatchPartitioner[E]); !ok || c.batch.Concurrency <= 1 {
		return 1
	}
	return c.batch.Concurrency
}

// partitionOf is the transaction of the batch an event goes to.
func (c *BatchConsumer[E]) partitionOf(ev E) int {
	n := c.partitions()
	if n == 1 {
		return 0
	}
	return int(c.apply.(BatchPartitioner[E]).PartitionKey(ev) % uint64(n)) //nolint:gosec // n is a small positive int
}

// applyPart applies the events of batch at idx in one transaction, or one by one when that
// fails, and sets their acks.
func (c *BatchConsumer[E]) applyPart(ctx context.Context, batch []decoded[E], idx []int, acks []bool) {
	evs := make([]E, len(idx))
	for k, i := range idx {
		evs[k] = batch[i].ev
	}
	ctx, span := c.startSpan(ctx, batch, idx)
	defer span.End()
	err := c.apply.ApplyBatch(ctx, evs)
	if err == nil {
		for _, i := range idx {
			acks[i] = true
			c.metrics.Handled(deliveryEventType(batch[i].Delivery))
		}
		return
	}
	span.SetStatus(codes.Error, "batch failed; applied one by one")
	c.log.WarnContext(ctx, "batch failed; applying its events one by one", "events", len(evs), "error", err)
	for k, i := range idx {
		ok, down := c.applyOne(ctx, batch[i].Delivery, evs[k])
		acks[i] = ok
		if down {
			return // the rest goes back to the queue too
		}
	}
}

// startSpan starts one consumer span for the batch, linked to the producer span of each
// of its messages.
func (c *BatchConsumer[E]) startSpan(ctx context.Context, batch []decoded[E], idx []int) (context.Context, trace.Span) {
	links := make([]trace.Link, 0, len(idx))
	for _, i := range idx {
		pctx := propagation.TraceContext{}.Extract(ctx, headerCarrier(batch[i].Headers))
		if sc := trace.SpanContextFromContext(pctx); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	return otel.Tracer(tracerName).Start(ctx, c.cfg.ServiceQueue()+" process",
		trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(
			attribute.String("messaging.system", "rabbitmq"),
			attribute.String("messaging.operation.type", "process"),
			attribute.Int("messaging.batch.message_count", len(idx)),
		))
}

// applyOne applies one event with retries and dead-letters it when that does not help.
// ack tells whether d may be acknowledged; down that the database does not answer (d and
// the rest of its batch go back to the queue).
//
// An event is dead-lettered for failing only after an attempt that followed a successful Ping:
// when the database comes back between the last failed attempt and the Ping, the failures may
// all have been the outage's, so the event is tried once more first.
func (c *BatchConsumer[E]) applyOne(ctx context.Context, d amqp.Delivery, ev E) (ack, down bool) {
	retry := c.cfg.Retry
	wait := retry.InitialInterval
	eventType := deliveryEventType(d)
	answered := false // the database answered a Ping before the latest attempt
	for attempt := 1; ; attempt++ {
		err := c.apply.ApplyOne(ctx, ev)
		if err == nil {
			c.metrics.Handled(eventType)
			return true, false
		}
		c.metrics.Failed(eventType)
		if IsPermanent(err) {
			return c.deadLetter(ctx, d, err, attempt), false
		}
		if attempt > retry.MaxRetries || ctx.Err() != nil {
			if perr := c.apply.Ping(ctx); perr != nil {
				c.log.ErrorContext(ctx, "the database does not answer; events go back to the queue", "error", err)
				return false, true
			}
			if answered || ctx.Err() != nil {
				return c.deadLetter(ctx, d, err, attempt), false
			}
			answered = true
			continue
		}
		sleep(ctx, wait)
		wait = min(2*wait, retry.MaxInterval)
	}
}

// deadLetter publishes d to the service's dead-letter queue (the message as the router
// would have seen it, with the reason) and reports whether d may be acknowledged.
func (c *BatchConsumer[E]) deadLetter(ctx context.Context, d amqp.Delivery, cause error, attempts int) bool {
	msg, err := newMarshaler(false).Unmarshal(d)
	if err != nil {
		c.log.ErrorContext(ctx, "dead-lettering failed; the message goes back to the queue", "error", err)
		return false
	}
	if msg.UUID == "" {
		msg.UUID = uuid.NewString()
	}
	if msg.Metadata.Get(MetaEventType) == "" {
		msg.Metadata.Set(MetaEventType, d.RoutingKey)
	}
	msg.Metadata.Set(MetaDeadLetterAttempts, strconv.Itoa(attempts))
	msg.SetContext(ctx)
	if err := c.deadLetters.send(msg, cause, c.cfg.ServiceQueue()); err != nil {
		c.log.ErrorContext(ctx, "dead-lettering failed; the message goes back to the queue", "error", err,
			"message_uuid", msg.UUID)
		return false
	}
	return true
}

// deliveryEventType is the event type a delivery claims: its event_type header, else its
// routing key (the event name on the events exchange).
func deliveryEventType(d amqp.Delivery) string {
	if t, ok := d.Headers[MetaEventType].(string); ok && t != "" {
		return t
	}
	return d.RoutingKey
}

// settle acknowledges a batch: all at once when every delivery may be acknowledged,
// otherwise one by one, requeueing the others.
func settle[E any](ch *amqp.Channel, batch []decoded[E], acks []bool) error {
	all := true
	for _, ok := range acks {
		all = all && ok
	}
	if all {
		return ch.Ack(batch[len(batch)-1].DeliveryTag, true)
	}
	for i, d := range batch {
		var err error
		if acks[i] {
			err = ch.Ack(d.DeliveryTag, false)
		} else {
			err = ch.Nack(d.DeliveryTag, false, true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// headerCarrier reads AMQP headers as OpenTelemetry propagation fields.
type headerCarrier amqp.Table

func (h headerCarrier) Get(key string) string {
	v, _ := h[key].(string)
	return v
}

func (h headerCarrier) Set(key, value string) { h[key] = value }

func (h headerCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
