package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	wamqp "github.com/ThreeDotsLabs/watermill-amqp/v3/pkg/amqp"
	"github.com/ThreeDotsLabs/watermill/message"
	amqp "github.com/rabbitmq/amqp091-go"
)

// publisher is a watermill message.Publisher to one AMQP exchange, routing key = topic.
//
// It replaces watermill-amqp's publisher, whose reconnect goroutine races with Publish
// (ThreeDotsLabs/watermill#693, open): this one dials lazily, under its lock, on the first
// publish after a failure, so it also starts while the broker is down. It reuses
// watermill-amqp's marshaler, so messages on the wire are the same.
type publisher struct {
	url       string
	exchange  string
	confirm   bool // wait for the broker's confirm of every message
	marshaler wamqp.Marshaler
	// declare runs on every new channel: the exchange (and queues) it publishes to.
	declare func(*amqp.Channel) error
	log     *slog.Logger

	mu     sync.Mutex
	conn   *amqp.Connection
	wire   *gatheringConn // conn's socket
	ch     *amqp.Channel
	closed bool
}

// Publish sends msgs in order and, when confirm is set, returns after the broker confirmed
// each. Every message is sent before the first confirmation is awaited, so a batch costs about
// one round trip to the broker, and the batch reaches the socket in one write (gatheringConn).
// On any failure the connection is dropped and dialled again on the next call.
func (p *publisher) Publish(topic string, msgs ...*message.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("bus: publisher closed")
	}
	ch, err := p.channel()
	if err != nil {
		return err
	}
	confirms, err := p.sendAll(ch, topic, msgs)
	if err != nil {
		p.drop()
		return err
	}
	for i, dc := range confirms {
		if err := confirmed(msgs[i].Context(), dc); err != nil {
			p.drop()
			return fmt.Errorf("publish %s to %s: %w", msgs[i].UUID, topic, err)
		}
	}
	return nil
}

// sendAll publishes msgs in order, gathered into one write when there are several, and returns
// their confirmations.
func (p *publisher) sendAll(ch *amqp.Channel, topic string, msgs []*message.Message) ([]*amqp.DeferredConfirmation, error) {
	if len(msgs) > 1 {
		p.wire.gather()
	}
	confirms := make([]*amqp.DeferredConfirmation, len(msgs))
	var err error
	for i, msg := range msgs {
		if confirms[i], err = p.send(ch, topic, msg); err != nil {
			err = fmt.Errorf("publish %s to %s: %w", msg.UUID, topic, err)
			break
		}
	}
	if ferr := p.wire.flush(); ferr != nil && err == nil {
		err = fmt.Errorf("publish to %s: %w", topic, ferr)
	}
	return confirms, err
}

// send publishes msg; the confirmation is nil on a channel not in confirm mode.
func (p *publisher) send(ch *amqp.Channel, topic string, msg *message.Message) (*amqp.DeferredConfirmation, error) {
	out, err := p.marshaler.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return ch.PublishWithDeferredConfirmWithContext(msg.Context(), p.exchange, topic, false, false, out)
}

// confirmed waits for the broker's confirmation dc (none to wait for when nil).
func confirmed(ctx context.Context, dc *amqp.DeferredConfirmation) error {
	if dc == nil {
		return nil
	}
	acked, err := dc.WaitContext(ctx)
	switch {
	case err != nil:
		return err
	case !acked:
		return errors.New("not confirmed by the broker")
	}
	return nil
}

func (p *publisher) channel() (*amqp.Channel, error) {
	if p.ch != nil && !p.ch.IsClosed() {
		return p.ch, nil
	}
	if p.conn == nil || p.conn.IsClosed() {
		conn, wire, err := dialGathering(p.url)
		if err != nil {
			return nil, err
		}
		p.conn, p.wire = conn, wire
	}
	ch, err := p.conn.Channel()
	if err != nil {
		p.drop()
		return nil, fmt.Errorf("open AMQP channel: %w", err)
	}
	if p.confirm {
		if err := ch.Confirm(false); err != nil {
			p.drop()
			return nil, fmt.Errorf("confirm mode: %w", err)
		}
	}
	if err := p.declare(ch); err != nil {
		p.drop()
		return nil, err
	}
	p.ch = ch
	return ch, nil
}

// drop forgets the connection; a failed or closed one cannot be trusted with confirms.
func (p *publisher) drop() {
	if p.conn != nil {
		if err := p.conn.Close(); err != nil && !errors.Is(err, amqp.ErrClosed) {
			p.log.Debug("closing AMQP connection", "error", err)
		}
	}
	p.conn, p.wire, p.ch = nil, nil, nil
}

func (p *publisher) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.drop()
	return nil
}

// connected dials at once, so a wrong URL fails at start-up rather than on the first event.
func connected(p *publisher) (message.Publisher, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.channel(); err != nil {
		return nil, err
	}
	return p, nil
}
