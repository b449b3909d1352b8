package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wamqp "github.com/ThreeDotsLabs/watermill-amqp/v3/pkg/amqp"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"
)

// reconnect keeps a subscriber's broker outages short: the library default backs off up
// to a minute.
var reconnect = wamqp.ReconnectConfig{
	BackoffInitialInterval:     100 * time.Millisecond,
	BackoffRandomizationFactor: 0.5,
	BackoffMultiplier:          1.5,
	BackoffMaxInterval:         5 * time.Second,
}

// subscriberConfig is the watermill-amqp configuration of a subscriber on exchange.
func subscriberConfig(cfg Config, exchange wamqp.ExchangeConfig) wamqp.Config {
	rc := reconnect
	return wamqp.Config{
		Connection:      wamqp.ConnectionConfig{AmqpURI: cfg.AMQPURL, Reconnect: &rc},
		Marshaler:       newMarshaler(false),
		Exchange:        exchange,
		QueueBind:       wamqp.QueueBindConfig{GenerateRoutingKey: func(topic string) string { return topic }},
		Consume:         wamqp.ConsumeConfig{Qos: wamqp.QosConfig{PrefetchCount: cfg.Prefetch}},
		TopologyBuilder: &wamqp.DefaultTopologyBuilder{},
	}
}

func eventsExchange(cfg Config) wamqp.ExchangeConfig {
	return wamqp.ExchangeConfig{
		GenerateName: wamqp.GenerateExchangeNameConstant(cfg.EventsExchange),
		Type:         amqp.ExchangeTopic,
		Durable:      true,
	}
}

// progressExchange is auto-delete per seed 001 and not durable: progress is live only.
// Every declarer must use the same flags.
func progressExchange(cfg Config) wamqp.ExchangeConfig {
	return wamqp.ExchangeConfig{
		GenerateName: wamqp.GenerateExchangeNameConstant(cfg.ProgressExchange),
		Type:         amqp.ExchangeFanout,
		AutoDeleted:  true,
	}
}

// NewAMQPPublisher publishes to the events exchange with routing key = topic = event
// name. Publish returns after the broker confirmed the messages (what the outbox forwarder
// relies on); after a broker outage the next Publish reconnects.
func NewAMQPPublisher(cfg Config, log *slog.Logger) (message.Publisher, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needEventsExchange); err != nil {
		return nil, err
	}
	return connected(&publisher{
		url:       cfg.AMQPURL,
		exchange:  cfg.EventsExchange,
		confirm:   true,
		marshaler: newMarshaler(false),
		declare:   func(ch *amqp.Channel) error { return DeclareEventsExchange(ch, cfg) },
		log:       log,
	})
}

// NewProgressPublisher publishes to the progress fanout exchange; the topic is the routing
// key render.job.progress.{job_id} (ProgressRoutingKey). Progress is transient and not
// confirmed: a lost update is superseded by the next one.
func NewProgressPublisher(cfg Config, log *slog.Logger) (message.Publisher, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needProgressExchange); err != nil {
		return nil, err
	}
	return connected(&publisher{
		url:       cfg.AMQPURL,
		exchange:  cfg.ProgressExchange,
		marshaler: newMarshaler(true),
		declare:   func(ch *amqp.Channel) error { return DeclareProgressExchange(ch, cfg) },
		log:       log,
	})
}

// NewDeadLetterPublisher publishes to the dead-letter exchange and declares the durable
// queue <service>.dead-letter bound to it, so dead letters are kept even before anyone
// reads them. Topic = routing key = the queue name (Config.DeadLetterQueue).
func NewDeadLetterPublisher(cfg Config, log *slog.Logger) (message.Publisher, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needService, needDeadLetterExchange); err != nil {
		return nil, err
	}
	return connected(&publisher{
		url:       cfg.AMQPURL,
		exchange:  cfg.DeadLetterExchange,
		confirm:   true,
		marshaler: newMarshaler(false),
		declare:   func(ch *amqp.Channel) error { return DeclareDeadLetterQueue(ch, cfg) },
		log:       log,
	})
}

// Dial connects to the broker at url as every part of the bus does: heartbeats every 10s,
// at most 5s to connect, reads buffered (bufferedConn).
func Dial(url string) (*amqp.Connection, error) {
	return dialVia(url, dial)
}

// dialVia connects to the broker at url with every part of the bus's settings, its socket
// opened by socket.
func dialVia(url string, socket func(network, addr string) (net.Conn, error)) (*amqp.Connection, error) {
	conn, err := amqp.DialConfig(url, amqp.Config{
		Heartbeat: 10 * time.Second,
		Locale:    "en_US",
		Dial:      socket,
	})
	if err != nil {
		return nil, fmt.Errorf("connect to AMQP: %w", err)
	}
	return conn, nil
}

// DeclareEventsExchange declares cfg's events exchange (durable topic), with the flags
// every declarer of it must use.
func DeclareEventsExchange(ch *amqp.Channel, cfg Config) error {
	return declareExchange(ch, eventsExchange(cfg))
}

// DeclareProgressExchange declares cfg's progress exchange (auto-delete fanout).
func DeclareProgressExchange(ch *amqp.Channel, cfg Config) error {
	return declareExchange(ch, progressExchange(cfg))
}

// DeclareServiceQueue declares the events exchange, the service's durable queue
// <service>.events and its binding with each key (an event name or a pattern such as
// "render.#"), as the service's consumers do on every connection.
func DeclareServiceQueue(ch *amqp.Channel, cfg Config, keys ...string) error {
	if err := DeclareEventsExchange(ch, cfg); err != nil {
		return err
	}
	return declareBoundQueue(ch, cfg, cfg.ServiceQueue(), cfg.EventsExchange, keys)
}

// declareBoundQueue declares the durable queue of cfg's queue type and binds it to exchange
// with each key. A quorum queue takes none of the classic arguments (x-max-priority,
// exclusive, auto-delete, non-durable). The quorum service queue dead-letters to the
// service's dead-letter queue what the broker gives up on: a quorum queue drops a message
// redelivered more often than its delivery limit (20 by default since RabbitMQ 4.0), and
// the consumers requeue a message while the database is down. A classic queue is declared
// without arguments, as before quorum queues existed, so existing classic queues still
// match.
func declareBoundQueue(ch *amqp.Channel, cfg Config, queue, exchange string, keys []string) error {
	qt, err := cfg.queueType()
	if err != nil {
		return err
	}
	var args amqp.Table
	if qt == QueueQuorum {
		args = amqp.Table{amqp.QueueTypeArg: amqp.QueueTypeQuorum}
		if queue == cfg.ServiceQueue() && cfg.DeadLetterExchange != "" {
			args["x-dead-letter-exchange"] = cfg.DeadLetterExchange
			args["x-dead-letter-routing-key"] = cfg.DeadLetterQueue()
		}
	}
	if _, err := ch.QueueDeclare(queue, true, false, false, false, args); err != nil {
		var ae *amqp.Error
		if errors.As(err, &ae) && ae.Code == amqp.PreconditionFailed {
			return fmt.Errorf("declare queue %s as a %s queue: it exists with another type or other arguments "+
				"(BUS_QUEUE_TYPE=%s): drain it and delete it so that it is declared again, "+
				"or give the service new queue names with BUS_SERVICE, or keep its type with BUS_QUEUE_TYPE: %w",
				queue, qt, qt, err)
		}
		return fmt.Errorf("declare queue %s: %w", queue, err)
	}
	for _, key := range keys {
		if err := ch.QueueBind(queue, key, exchange, false, nil); err != nil {
			return fmt.Errorf("bind %s to %s with %q: %w", queue, exchange, key, err)
		}
	}
	return nil
}

func declareExchange(ch *amqp.Channel, ex wamqp.ExchangeConfig) error {
	name := ex.GenerateName("")
	if err := ch.ExchangeDeclare(name, ex.Type, ex.Durable, ex.AutoDeleted, false, false, nil); err != nil {
		return fmt.Errorf("declare exchange %s: %w", name, err)
	}
	return nil
}

// DeclareDeadLetterQueue declares the dead-letter exchange (durable direct) and the
// service's durable queue <service>.dead-letter bound to it with its own name, so dead
// letters are kept even before anyone reads them.
func DeclareDeadLetterQueue(ch *amqp.Channel, cfg Config) error {
	if err := ch.ExchangeDeclare(cfg.DeadLetterExchange, amqp.ExchangeDirect, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declare exchange %s: %w", cfg.DeadLetterExchange, err)
	}
	q := cfg.DeadLetterQueue()
	return declareBoundQueue(ch, cfg, q, cfg.DeadLetterExchange, []string{q})
}

// Subscriber consumes the service's durable queue <service>.events, bound to the events
// exchange with the service's binding keys. Instances of a service compete on the queue.
// The topic given to Subscribe is ignored: there is one queue per service.
type Subscriber struct {
	*wamqp.Subscriber
	queue string
}

// Queue is the name of the consumed queue.
func (s *Subscriber) Queue() string { return s.queue }

// NewSubscriber declares (on Subscribe, and again after a reconnect) the events exchange,
// the queue <service>.events and one binding per key: exact event names or patterns such
// as "render.#".
func NewSubscriber(cfg Config, log *slog.Logger, bindingKeys ...string) (*Subscriber, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needService, needEventsExchange); err != nil {
		return nil, err
	}
	if len(bindingKeys) == 0 {
		return nil, errors.New("bus: a subscriber needs at least one binding key")
	}
	c := subscriberConfig(cfg, eventsExchange(cfg))
	c.Queue = wamqp.QueueConfig{GenerateName: wamqp.GenerateQueueNameConstant(cfg.ServiceQueue()), Durable: true}
	c.TopologyBuilder = bindKeys{cfg: cfg, keys: bindingKeys}
	sub, err := wamqp.NewSubscriber(c, watermill.NewSlogLogger(log))
	if err != nil {
		return nil, err
	}
	return &Subscriber{Subscriber: sub, queue: cfg.ServiceQueue()}, nil
}

// NewProgressSubscriber gives this instance its own exclusive, auto-delete queue
// <service>.progress.<random> bound to the progress exchange: every instance sees every
// job's progress. Subscribe with any topic, e.g. "render.job.progress.v1".
func NewProgressSubscriber(cfg Config, log *slog.Logger) (message.Subscriber, error) {
	cfg = cfg.withDefaults()
	if err := cfg.require(needService, needProgressExchange); err != nil {
		return nil, err
	}
	return &progressSubscriber{cfg: cfg, queue: cfg.Service + ".progress." + uuid.NewString(), log: log,
		closing: make(chan struct{})}, nil
}

// NewGoChannel is the in-process bus for development without a broker, when all
// consumers live in one process. Topic = event name; nothing survives a restart.
func NewGoChannel(log *slog.Logger) *gochannel.GoChannel {
	return gochannel.NewGoChannel(gochannel.Config{OutputChannelBuffer: 64}, watermill.NewSlogLogger(log))
}

// bindKeys declares the service queue (of cfg's queue type) and binds it with every key.
type bindKeys struct {
	cfg  Config
	keys []string
}

func (b bindKeys) ExchangeDeclare(ch *amqp.Channel, name string, c wamqp.Config) error {
	return (&wamqp.DefaultTopologyBuilder{}).ExchangeDeclare(ch, name, c)
}

func (b bindKeys) BuildTopology(ch *amqp.Channel, p wamqp.BuildTopologyParams, c wamqp.Config, _ watermill.LoggerAdapter) error {
	if err := b.ExchangeDeclare(ch, p.ExchangeName, c); err != nil {
		return fmt.Errorf("declare exchange %s: %w", p.ExchangeName, err)
	}
	return declareBoundQueue(ch, b.cfg, p.QueueName, p.ExchangeName, b.keys)
}

// describePublishing fills the AMQP properties other tools show: message id, type, content type.
func describePublishing(p amqp.Publishing) amqp.Publishing {
	p.ContentType = "application/json"
	if id, ok := p.Headers[wamqp.DefaultMessageUUIDHeaderKey].(string); ok {
		p.MessageId = id
	}
	if t, ok := p.Headers[MetaEventType].(string); ok {
		p.Type = t
	}
	return p
}

func newMarshaler(transient bool) marshaler {
	return marshaler{wamqp.DefaultMarshaler{PostprocessPublishing: describePublishing, NotPersistentDeliveryMode: transient}}
}

// marshaler reads messages of any producer: the default one refuses a delivery whose
// headers are not all strings (RabbitMQ's own x-death, a foreign producer's numbers), which
// would requeue it forever. Such headers become their printed value; a message without
// watermill's uuid header takes the AMQP message id.
type marshaler struct{ wamqp.DefaultMarshaler }

func (m marshaler) Unmarshal(d amqp.Delivery) (*message.Message, error) {
	headers := make(amqp.Table, len(d.Headers))
	for k, v := range d.Headers {
		if s, ok := v.(string); ok {
			headers[k] = s
		} else {
			headers[k] = fmt.Sprint(v)
		}
	}
	if _, ok := headers[wamqp.DefaultMessageUUIDHeaderKey]; !ok && d.MessageId != "" {
		headers[wamqp.DefaultMessageUUIDHeaderKey] = d.MessageId
	}
	d.Headers = headers
	return m.DefaultMarshaler.Unmarshal(d)
}
