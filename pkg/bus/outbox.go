package bus

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/forwarder"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
)

// OutboxTopic is the watermill-sql topic of the outbox: its rows live in table
// watermill_outbox (created by Migrations).
const OutboxTopic = "outbox"

// outboxSchema reads up to outboxBatch rows per transaction: one row each cost the forwarder
// four round trips and a commit per event, and it fell behind a few hundred events a second.
var outboxSchema = wsql.PostgreSQLQueueSchema{SubscribeBatchSize: outboxBatch}

const outboxBatch = 64

var outboxOffsets = forwardedRows{wsql.PostgreSQLQueueOffsetsAdapter{DeleteOnAck: true}}

// forwardedRows deletes only the rows of a batch up to the last one forwarded. watermill-sql v4
// stops a batch at the first row not forwarded (a broker outage) but passes every row it read
// to the ack query, which would delete the rest of the batch unsent.
type forwardedRows struct {
	wsql.PostgreSQLQueueOffsetsAdapter
}

func (a forwardedRows) AckMessageQuery(p wsql.AckMessageQueryParams) (wsql.Query, error) {
	// The rows come in offset order and are forwarded in that order.
	for i, r := range p.Rows {
		if r.Offset == p.LastRow.Offset {
			p.Rows = p.Rows[:i+1]
			break
		}
	}
	return a.PostgreSQLQueueOffsetsAdapter.AckMessageQuery(p)
}

// PublishInTx writes msgs, addressed to topic (the event name), to the outbox in the
// caller's transaction: they reach the broker if and only if tx commits. The forwarder
// (RunForwarder) delivers them at least once; consumers dedupe with HandleOnce.
func PublishInTx(ctx context.Context, tx pgx.Tx, topic string, msgs ...*message.Message) error {
	pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: outboxSchema}, watermill.NopLogger{})
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Context() == context.Background() {
			m.SetContext(ctx)
		}
	}
	out := forwarder.NewPublisher(pub, forwarder.PublisherConfig{ForwarderTopic: OutboxTopic})
	if err := out.Publish(topic, msgs...); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	return nil
}

// PublishEventsInTx writes each envelope to the outbox addressed to its event type.
func PublishEventsInTx(ctx context.Context, tx pgx.Tx, envs ...events.EventEnvelope) error {
	for _, e := range envs {
		msg, err := Message(ctx, e)
		if err != nil {
			return err
		}
		if err := PublishInTx(ctx, tx, e.EventType, msg); err != nil {
			return err
		}
	}
	return nil
}

// RunForwarder moves outbox rows to out (the AMQP publisher) until ctx ends. A row is
// deleted only after out confirmed it, so rows written while the broker is unreachable
// wait and are delivered once it is back. Several replicas may run it: a row is locked
// while forwarded.
func RunForwarder(ctx context.Context, cfg Config, pool *pgxpool.Pool, out message.Publisher, log *slog.Logger) error {
	cfg = cfg.withDefaults()
	logger := watermill.NewSlogLogger(log)
	ackDeadline := cfg.Outbox.AckDeadline
	sub, err := wsql.NewSubscriber(wsql.BeginnerFromPgx(pool), wsql.SubscriberConfig{
		SchemaAdapter:  outboxSchema,
		OffsetsAdapter: outboxOffsets,
		PollInterval:   cfg.Outbox.PollInterval,
		ResendInterval: cfg.Outbox.ResendInterval,
		AckDeadline:    &ackDeadline,
	}, logger)
	if err != nil {
		return err
	}
	defer func() { _ = sub.Close() }()
	fwd, err := forwarder.NewForwarder(sub, out, logger, forwarder.Config{ForwarderTopic: OutboxTopic})
	if err != nil {
		return err
	}
	return fwd.Run(ctx)
}
