package bus

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	amqp "github.com/rabbitmq/amqp091-go"
)

// progressSubscriber reads the progress fanout exchange through an exclusive, auto-delete
// queue of its own. It replaces watermill-amqp's subscriber here, whose reconnect replaces
// its connection state without synchronisation (a data race on every broker loss): this
// one redials in its own loop, after a backoff of up to 5s.
type progressSubscriber struct {
	cfg   Config
	queue string
	log   *slog.Logger

	closing chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

// Subscribe declares and binds the queue, then consumes it until ctx ends or the
// subscriber is closed; the topic is ignored. A message is acknowledged when the handler
// acks it and requeued when it nacks it.
func (s *progressSubscriber) Subscribe(ctx context.Context, _ string) (<-chan *message.Message, error) {
	conn, deliveries, err := s.consume()
	if err != nil {
		return nil, err
	}
	out := make(chan *message.Message)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(out)
		backoff := 100 * time.Millisecond
		for {
			if conn != nil {
				backoff = 100 * time.Millisecond
				s.forward(ctx, deliveries, out)
				_ = conn.Close()
			}
			select {
			case <-ctx.Done():
				return
			case <-s.closing:
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			if conn, deliveries, err = s.consume(); err != nil {
				s.log.WarnContext(ctx, "progress subscriber: reconnecting", "error", err, "backoff", backoff)
			}
		}
	}()
	return out, nil
}

// consume connects, declares the exchange and the queue, binds and consumes.
func (s *progressSubscriber) consume() (*amqp.Connection, <-chan amqp.Delivery, error) {
	conn, err := Dial(s.cfg.AMQPURL)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*amqp.Connection, <-chan amqp.Delivery, error) {
		_ = conn.Close()
		return nil, nil, err
	}
	ch, err := conn.Channel()
	if err != nil {
		return fail(fmt.Errorf("channel: %w", err))
	}
	if err := ch.Qos(s.cfg.Prefetch, 0, false); err != nil {
		return fail(fmt.Errorf("qos: %w", err))
	}
	if err := DeclareProgressExchange(ch, s.cfg); err != nil {
		return fail(err)
	}
	// Exclusive and auto-delete, so always classic: a quorum queue can be neither.
	if _, err := ch.QueueDeclare(s.queue, false, true, true, false, nil); err != nil {
		return fail(fmt.Errorf("declare queue %s: %w", s.queue, err))
	}
	if err := ch.QueueBind(s.queue, "", s.cfg.ProgressExchange, false, nil); err != nil {
		return fail(fmt.Errorf("bind %s to %s: %w", s.queue, s.cfg.ProgressExchange, err))
	}
	deliveries, err := ch.Consume(s.queue, "", false, true, false, false, nil)
	if err != nil {
		return fail(fmt.Errorf("consume %s: %w", s.queue, err))
	}
	return conn, deliveries, nil
}

// forward hands each delivery to out and settles it as the handler did, until the
// deliveries end (connection lost), ctx ends or the subscriber closes.
func (s *progressSubscriber) forward(ctx context.Context, deliveries <-chan amqp.Delivery, out chan<- *message.Message) {
	m := newMarshaler(true)
	for {
		var d amqp.Delivery
		var ok bool
		select {
		case d, ok = <-deliveries:
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		}
		msg, err := m.Unmarshal(d)
		if err != nil {
			s.log.WarnContext(ctx, "progress subscriber: unreadable message dropped", "error", err)
			_ = d.Nack(false, false)
			continue
		}
		msg.SetContext(ctx)
		select {
		case out <- msg:
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		}
		select {
		case <-msg.Acked():
			_ = d.Ack(false)
		case <-msg.Nacked():
			_ = d.Nack(false, true)
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		}
	}
}

// Close stops consuming and waits until the subscriptions ended.
func (s *progressSubscriber) Close() error {
	s.once.Do(func() { close(s.closing) })
	s.wg.Wait()
	return nil
}
