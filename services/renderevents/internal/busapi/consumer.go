// Package busapi is the service's inbound bus port: the batching consumer of the durable
// events queue and the consumer of this instance's progress queue, which decode events into
// domain values and hand them to internal/app.
package busapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// DefaultBindingKeys bind the service queue to every render and identity event.
var DefaultBindingKeys = []string{"render.#", "identity.#"}

// ConsumerConfig tunes the events consumer.
type ConsumerConfig struct {
	Bus bus.Config
	// BindingKeys of the service queue on the events exchange (DefaultBindingKeys when empty).
	BindingKeys []string
	// BatchSize is the most deliveries applied in one transaction (default 256).
	BatchSize int
	// BatchWait is how long a batch waits to fill up after its first delivery (default 5ms).
	BatchWait time.Duration
	// Prefetch is the AMQP prefetch count (default 4 batches).
	Prefetch int
}

// Applier folds events into the read models (app.Ingest).
type Applier interface {
	ApplyBatch(ctx context.Context, evs []domain.Event) error
	ApplyOne(ctx context.Context, ev domain.Event) error
}

// Pinger reports whether the database answers: an event that keeps failing while it does
// not is not to blame and goes back to the queue instead of the dead-letter queue.
type Pinger func(ctx context.Context) error

// EventsConsumer consumes the service's durable queue <service>.events. It applies
// deliveries in batches, one transaction per batch (the inbox records every event id in
// it); when a batch fails, its events are applied one by one with retries, so a bad event
// is isolated: a schema-invalid or unappliable message goes to the dead-letter queue with
// the reason at once, one that keeps failing after its retries too, and the consumer goes
// on with the next messages.
type EventsConsumer struct {
	cfg         ConsumerConfig
	apply       Applier
	deadLetters message.Publisher
	metrics     bus.Metrics
	log         *slog.Logger
	ready       chan struct{}
	// Ping, when set, tells a broken database from a bad event (see Pinger).
	Ping Pinger
}

// NewEventsConsumer returns a consumer; metrics may be nil.
func NewEventsConsumer(cfg ConsumerConfig, apply Applier, deadLetters message.Publisher, metrics bus.Metrics, log *slog.Logger) *EventsConsumer {
	if len(cfg.BindingKeys) == 0 {
		cfg.BindingKeys = DefaultBindingKeys
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 256
	}
	if cfg.BatchWait <= 0 {
		cfg.BatchWait = 5 * time.Millisecond
	}
	if cfg.Prefetch <= 0 {
		cfg.Prefetch = 4 * cfg.BatchSize
	}
	if cfg.Bus.EventsExchange == "" {
		cfg.Bus.EventsExchange = bus.DefaultEventsExchange
	}
	if cfg.Bus.Retry.MaxRetries == 0 {
		cfg.Bus.Retry.MaxRetries = 5
	}
	if cfg.Bus.Retry.InitialInterval <= 0 {
		cfg.Bus.Retry.InitialInterval = 100 * time.Millisecond
	}
	if cfg.Bus.Retry.MaxInterval <= 0 {
		cfg.Bus.Retry.MaxInterval = 10 * time.Second
	}
	return &EventsConsumer{cfg: cfg, apply: apply, deadLetters: deadLetters, metrics: metrics, log: log, ready: make(chan struct{})}
}

// Ready is closed once the queue is declared, bound and consumed for the first time.
func (c *EventsConsumer) Ready() <-chan struct{} { return c.ready }

// Run consumes until ctx ends, reconnecting after broker failures. The batch in hand when
// ctx ends is finished and acknowledged; deliveries not acknowledged yet go back to the
// queue when the connection closes.
func (c *EventsConsumer) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		err := c.session(ctx, func() { backoff = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return nil //nolint:nilerr // shutting down: the interruption is expected
		}
		c.log.WarnContext(ctx, "events consumer interrupted; reconnecting", "error", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (c *EventsConsumer) session(ctx context.Context, connected func()) error {
	conn, err := amqp.DialConfig(c.cfg.Bus.AMQPURL, amqp.Config{Heartbeat: 10 * time.Second, Locale: "en_US",
		Dial: amqp.DefaultDial(5 * time.Second)})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("channel: %w", err)
	}
	if err := ch.Qos(c.cfg.Prefetch, 0, false); err != nil {
		return fmt.Errorf("qos: %w", err)
	}
	queue := c.cfg.Bus.ServiceQueue()
	if err := DeclareServiceQueue(ch, c.cfg.Bus.EventsExchange, queue, c.cfg.BindingKeys); err != nil {
		return err
	}
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
	c.log.InfoContext(ctx, "consuming events", "queue", queue, "batch", c.cfg.BatchSize, "prefetch", c.cfg.Prefetch)
	for {
		batch := c.collect(ctx, deliveries)
		if len(batch) == 0 {
			if ctx.Err() != nil {
				return nil
			}
			return errors.New("delivery channel closed")
		}
		// A batch in hand is finished even when ctx ends, so that it is acknowledged.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		acks := c.process(pctx, batch)
		cancel()
		if err := settle(ch, batch, acks); err != nil {
			return err
		}
	}
}

// DeclareServiceQueue declares the events exchange (durable topic), the durable service
// queue and its bindings, with the same flags as pkg/bus.
func DeclareServiceQueue(ch *amqp.Channel, exchange, queue string, keys []string) error {
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare exchange %s: %w", exchange, err)
	}
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare queue %s: %w", queue, err)
	}
	for _, k := range keys {
		if err := ch.QueueBind(queue, k, exchange, false, nil); err != nil {
			return fmt.Errorf("bind %s with %q: %w", queue, k, err)
		}
	}
	return nil
}

// collect waits for one delivery, then takes what arrives within BatchWait, up to BatchSize.
func (c *EventsConsumer) collect(ctx context.Context, deliveries <-chan amqp.Delivery) []amqp.Delivery {
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
	timer := time.NewTimer(c.cfg.BatchWait)
	defer timer.Stop()
	for len(batch) < c.cfg.BatchSize {
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

// process applies a batch and returns, per delivery, whether it may be acknowledged
// (applied, skipped or dead-lettered) or must go back to the queue.
func (c *EventsConsumer) process(ctx context.Context, batch []amqp.Delivery) []bool {
	acks := make([]bool, len(batch))
	evs := make([]domain.Event, 0, len(batch))
	idx := make([]int, 0, len(batch))
	for i, d := range batch {
		ev, err := ParseEvent(d.Body)
		switch {
		case err != nil:
			acks[i] = c.deadLetter(ctx, d, err.Error(), true, 1)
		case ev.Type == events.RenderJobProgressV1:
			acks[i] = true // progress belongs on the progress exchange; nothing to keep
		default:
			evs = append(evs, ev)
			idx = append(idx, i)
		}
	}
	if len(evs) == 0 {
		return acks
	}
	// One consumer span per batch, linked to the producer span of each message.
	links := make([]trace.Link, 0, len(idx))
	for _, i := range idx {
		pctx := propagation.TraceContext{}.Extract(ctx, headerCarrier(batch[i].Headers))
		if sc := trace.SpanContextFromContext(pctx); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	ctx, span := otel.Tracer("github.com/videotpl/platform/services/renderevents/internal/busapi").Start(ctx,
		c.cfg.Bus.ServiceQueue()+" process", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("messaging.batch.message_count", len(evs))))
	defer span.End()
	err := c.apply.ApplyBatch(ctx, evs)
	if err != nil {
		span.SetStatus(codes.Error, "batch failed; applied one by one")
	}
	if err == nil {
		for k, i := range idx {
			acks[i] = true
			c.handled(evs[k].Type)
		}
		return acks
	}
	c.log.WarnContext(ctx, "batch failed; applying its events one by one", "events", len(evs), "error", err)
	for k, i := range idx {
		ok, down := c.applyOne(ctx, batch[i], evs[k])
		acks[i] = ok
		if down {
			break // the rest goes back to the queue too
		}
	}
	return acks
}

// applyOne applies one event with retries and dead-letters it when that does not help.
// ack tells whether d may be acknowledged; down that the database does not answer (d and
// the rest of its batch go back to the queue).
func (c *EventsConsumer) applyOne(ctx context.Context, d amqp.Delivery, ev domain.Event) (ack, down bool) {
	retry := c.cfg.Bus.Retry
	wait := retry.InitialInterval
	for attempt := 1; ; attempt++ {
		err := c.apply.ApplyOne(ctx, ev)
		if err == nil {
			c.handled(ev.Type)
			return true, false
		}
		if c.metrics != nil {
			c.metrics.Failed(ev.Type)
		}
		if errors.Is(err, app.ErrPoison) {
			return c.deadLetter(ctx, d, err.Error(), true, attempt), false
		}
		if attempt > retry.MaxRetries || ctx.Err() != nil {
			if c.Ping != nil && c.Ping(ctx) != nil {
				c.log.ErrorContext(ctx, "the database does not answer; events go back to the queue", "error", err)
				return false, true
			}
			return c.deadLetter(ctx, d, err.Error(), false, attempt), false
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, retry.MaxInterval)
	}
}

func (c *EventsConsumer) handled(eventType string) {
	if c.metrics != nil {
		c.metrics.Handled(eventType)
	}
}

// deadLetter publishes d to the service's dead-letter queue with the reason in its
// headers (pkg/bus's names) and reports whether d may be acknowledged.
func (c *EventsConsumer) deadLetter(ctx context.Context, d amqp.Delivery, reason string, permanent bool, attempts int) bool {
	id := d.MessageId
	if id == "" {
		id = uuid.NewString()
	}
	msg := message.NewMessage(id, d.Body)
	for k, v := range d.Headers {
		msg.Metadata.Set(k, fmt.Sprint(v))
	}
	eventType := msg.Metadata.Get(bus.MetaEventType)
	if eventType == "" {
		eventType = d.RoutingKey
		msg.Metadata.Set(bus.MetaEventType, eventType)
	}
	if len(reason) > 2000 {
		reason = reason[:2000]
	}
	msg.Metadata.Set(bus.MetaDeadLetterReason, reason)
	msg.Metadata.Set(bus.MetaDeadLetterPermanent, strconv.FormatBool(permanent))
	msg.Metadata.Set(bus.MetaDeadLetterAttempts, strconv.Itoa(attempts))
	msg.Metadata.Set(bus.MetaDeadLetterHandler, c.cfg.Bus.Service+".events")
	msg.Metadata.Set(bus.MetaDeadLetterAt, time.Now().UTC().Format(time.RFC3339Nano))
	msg.SetContext(ctx)
	if err := c.deadLetters.Publish(c.cfg.Bus.DeadLetterQueue(), msg); err != nil {
		c.log.ErrorContext(ctx, "dead-lettering failed; the message goes back to the queue", "error", err, "message_id", id)
		return false
	}
	if c.metrics != nil {
		c.metrics.DeadLettered(eventType)
	}
	c.log.WarnContext(ctx, "message dead-lettered", "queue", c.cfg.Bus.DeadLetterQueue(), "message_id", id,
		"event_type", eventType, "reason", reason, "permanent", permanent)
	return true
}

// settle acknowledges a batch: all at once when every delivery may be acknowledged,
// otherwise one by one, requeueing the others.
func settle(ch *amqp.Channel, batch []amqp.Delivery, acks []bool) error {
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
