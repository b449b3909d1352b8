package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// watermillUUIDHeader is where watermill-amqp (pkg/bus) reads a message's UUID.
const watermillUUIDHeader = "_watermill_message_uuid"

// Publisher publishes simulated streams (internal/store/sim) as the render orchestrator and the identity
// service would: events on the durable topic exchange (routing key = event name,
// persistent), progress on the auto-delete fanout exchange (transient), in the wire format
// of pkg/bus. It publishes with confirms, many in flight at once.
type Publisher struct {
	conn             *amqp.Connection
	ch               *amqp.Channel
	eventsExchange   string
	progressExchange string
	// Window is the number of unconfirmed messages in flight (default 1000).
	Window int
}

// NewPublisher connects and declares both exchanges as pkg/bus does.
func NewPublisher(cfg bus.Config) (*Publisher, error) {
	conn, err := bus.Dial(cfg.AMQPURL)
	if err != nil {
		return nil, err
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Confirm(false)
	}
	if err == nil {
		err = bus.DeclareEventsExchange(ch, cfg)
	}
	if err == nil {
		err = bus.DeclareProgressExchange(ch, cfg)
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return &Publisher{conn: conn, ch: ch, eventsExchange: cfg.EventsExchange, progressExchange: cfg.ProgressExchange, Window: 1000}, nil
}

// Close closes the connection.
func (p *Publisher) Close() error { return p.conn.Close() }

// Publishing is the AMQP form of a simulated message.
func Publishing(m sim.Message) amqp.Publishing {
	mode := amqp.Persistent
	if m.Exchange == sim.Progress {
		mode = amqp.Transient
	}
	return amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: mode,
		MessageId:    m.EventID.String(),
		Type:         m.EventType,
		Timestamp:    time.Now(),
		Headers: amqp.Table{watermillUUIDHeader: m.EventID.String(), bus.MetaEventType: m.EventType,
			bus.MetaTenantID: m.TenantID.String()},
		Body: m.Body,
	}
}

// Publish sends msgs in order and returns once the broker confirmed all of them. each,
// when set, is called before each message is sent (pacing, timestamps).
func (p *Publisher) Publish(ctx context.Context, msgs []sim.Message, each func(i int, m *sim.Message)) error {
	var inFlight []*amqp.DeferredConfirmation
	// wait waits for the confirms of all but keep messages in flight, oldest first.
	wait := func(keep int) error {
		for len(inFlight) > keep {
			ok, err := inFlight[0].WaitContext(ctx)
			if err != nil {
				return err
			}
			if !ok {
				return errors.New("the broker refused a message")
			}
			inFlight = inFlight[1:]
		}
		return nil
	}
	for i := range msgs {
		m := &msgs[i]
		if each != nil {
			each(i, m)
		}
		exchange := p.eventsExchange
		if m.Exchange == sim.Progress {
			exchange = p.progressExchange
		}
		dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, m.RoutingKey, false, false, Publishing(*m))
		if err != nil {
			return fmt.Errorf("publish %s: %w", m.EventType, err)
		}
		inFlight = append(inFlight, dc)
		if err := wait(p.Window - 1); err != nil {
			return err
		}
	}
	return wait(0)
}
