package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// OutboxTopic is the watermill-sql topic of the outbox: its rows live in table
// watermill_outbox (created by Migrations).
const OutboxTopic = "outbox"

// outboxBatch is how many rows the forwarder reads, publishes and deletes per transaction.
// Their publishes are confirmed together, so a batch costs about one broker round trip.
const outboxBatch = 256

// outboxRow is the payload of an outbox row: watermill's forwarder envelope, so rows written
// and forwarded by watermill's forwarder component and by this package are the same.
type outboxRow struct {
	DestinationTopic string            `json:"destination_topic"`
	UUID             string            `json:"uuid"`
	Payload          []byte            `json:"payload"`
	Metadata         map[string]string `json:"metadata"`
}

const insertOutboxRow = `INSERT INTO watermill_outbox (uuid, payload, metadata) VALUES ($1, $2, '{}')`

// PublishInTx writes msgs, addressed to topic (the event name), to the outbox in the
// caller's transaction: they reach the broker if and only if tx commits. The forwarder
// (RunForwarder) delivers them at least once; consumers dedupe with HandleOnce.
func PublishInTx(ctx context.Context, tx pgx.Tx, topic string, msgs ...*message.Message) error {
	if topic == "" {
		return errors.New("outbox: a message needs a destination topic")
	}
	for _, m := range msgs {
		row := encodeOutboxRow(outboxRow{DestinationTopic: topic, UUID: m.UUID, Payload: m.Payload, Metadata: m.Metadata})
		if _, err := tx.Exec(ctx, insertOutboxRow, uuid.NewString(), row); err != nil {
			return fmt.Errorf("outbox: %w", err)
		}
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
// wait and are delivered once it is back. Rows go out in the order they were written, up to
// outboxBatch per transaction, each batch's publishes confirmed together. Several replicas
// may run it: a batch is locked while forwarded and the next replica waits for it, which
// keeps the order.
func RunForwarder(ctx context.Context, cfg Config, pool *pgxpool.Pool, out message.Publisher, log *slog.Logger) error {
	cfg = cfg.withDefaults()
	f := forwarder{pool: pool, out: out, cfg: cfg.Outbox, log: log}
	for ctx.Err() == nil {
		pause := cfg.Outbox.PollInterval
		switch n, err := f.forwardBatch(ctx); {
		case err != nil && ctx.Err() == nil:
			log.WarnContext(ctx, "outbox: forwarding failed; retrying", slog.String("error", err.Error()),
				slog.Duration("retry_in", cfg.Outbox.ResendInterval))
			pause = cfg.Outbox.ResendInterval
		case n == outboxBatch:
			continue // more may wait
		}
		sleep(ctx, pause)
	}
	return nil
}

type forwarder struct {
	pool *pgxpool.Pool
	out  message.Publisher
	cfg  OutboxConfig
	log  *slog.Logger
}

// forwardBatch forwards the oldest rows of the outbox in one transaction and returns how many
// it read. Rows are published in runs of one topic; when a run fails, the runs before it are
// deleted and the rest stays for the next attempt.
func (f *forwarder) forwardBatch(ctx context.Context) (read int, err error) {
	var publishErr error
	err = pgxdb.WithTx(ctx, f.pool, func(tx pgx.Tx) error {
		batch, err := f.lock(ctx, tx)
		read = len(batch.offsets)
		if err != nil || read == 0 {
			return err
		}
		var sent int
		sent, publishErr = f.publish(ctx, batch)
		// The deletions travel with the COMMIT. What was forwarded is committed even when a
		// later run failed.
		w := pgxdb.Defer(tx)
		if sent > 0 {
			_, _ = w.Exec(ctx, `DELETE FROM watermill_outbox WHERE "offset" = ANY($1)`, batch.offsets[:sent])
		}
		if len(batch.unreadable) > 0 {
			_, _ = w.Exec(ctx, `UPDATE watermill_outbox SET acked = true WHERE "offset" = ANY($1)`, batch.unreadable)
		}
		return w.Close(ctx)
	})
	return read, errors.Join(err, publishErr)
}

// lockedBatch is the oldest rows of the outbox, locked: offsets[i] is the row of msgs[i].
type lockedBatch struct {
	offsets    []int64
	topics     []string
	msgs       []*message.Message
	unreadable []int64
}

// lock reads and locks the oldest rows not yet forwarded. A row whose payload is not an
// outbox envelope cannot be forwarded: it is logged and marked acked, which keeps it in the
// table for an operator but out of the forwarder's way.
func (f *forwarder) lock(ctx context.Context, tx pgx.Tx) (lockedBatch, error) {
	rows, err := tx.Query(ctx, `SELECT "offset", payload FROM watermill_outbox WHERE NOT acked
		ORDER BY "offset" LIMIT $1 FOR UPDATE`, outboxBatch)
	if err != nil {
		return lockedBatch{}, err
	}
	defer rows.Close()
	var (
		b       lockedBatch
		offset  int64
		payload []byte
	)
	for rows.Next() {
		if err := rows.Scan(&offset, &payload); err != nil {
			return lockedBatch{}, err
		}
		r, err := decodeOutboxRow(payload)
		if err != nil || r.DestinationTopic == "" {
			f.log.ErrorContext(ctx, "outbox: a row is not an outbox envelope; it is kept, marked acked, and not forwarded",
				slog.Int64("offset", offset), slog.Any("error", err))
			b.unreadable = append(b.unreadable, offset)
			continue
		}
		msg := message.NewMessage(r.UUID, r.Payload)
		if r.Metadata != nil {
			msg.Metadata = r.Metadata
		}
		b.offsets, b.topics, b.msgs = append(b.offsets, offset), append(b.topics, r.DestinationTopic), append(b.msgs, msg)
	}
	return b, rows.Err()
}

// publish sends b's messages in order, one Publish per run of one topic, within the ack
// deadline, and returns how many of them the broker confirmed (a prefix of b).
func (f *forwarder) publish(ctx context.Context, b lockedBatch) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.AckDeadline)
	defer cancel()
	for _, m := range b.msgs {
		m.SetContext(ctx)
	}
	for start := 0; start < len(b.msgs); {
		end := start + 1
		for end < len(b.msgs) && b.topics[end] == b.topics[start] {
			end++
		}
		if err := f.out.Publish(b.topics[start], b.msgs[start:end]...); err != nil {
			return start, fmt.Errorf("publish to %s: %w", b.topics[start], err)
		}
		start = end
	}
	return len(b.msgs), nil
}
