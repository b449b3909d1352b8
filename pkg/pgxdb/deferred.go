package pgxdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Deferred is a transaction whose writes wait: statements whose results are not read (Exec, and
// the statements of a batch given to SendBatch: what sqlc's :exec and :batchexec run) are queued
// and go to PostgreSQL as one batch, in order, before the next read or COPY, at Flush and at
// Commit. A read therefore sees every earlier write, as on the plain transaction, and a run of
// writes costs one round trip instead of one each. A queued statement's error is reported by the
// next read, Flush or Commit, which fails the transaction as the statement itself would have.
//
// On a transaction begun by Begin the queue is the transaction's own: the writes travel in the
// round trip of its next statement, whichever way it is sent, or with its COMMIT.
type Deferred struct {
	pgx.Tx
	lazy   *lazyTx // Tx when Begin began it
	queued pgx.Batch
}

// Defer returns tx with its writes deferred.
func Defer(tx pgx.Tx) *Deferred {
	lazy, _ := tx.(*lazyTx)
	return &Deferred{Tx: tx, lazy: lazy}
}

// queue is where the writes wait.
func (d *Deferred) queue() *pgx.Batch {
	if d.lazy != nil {
		return &d.lazy.queued
	}
	return &d.queued
}

// Exec queues the statement; its command tag is empty.
func (d *Deferred) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	d.queue().Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

// SendBatch queues the batch's statements behind the others; its results report no error and
// have no rows: the errors come with the next read, Flush or Commit.
func (d *Deferred) SendBatch(_ context.Context, b *pgx.Batch) pgx.BatchResults {
	q := d.queue()
	for _, qq := range b.QueuedQueries {
		q.Queue(qq.SQL, qq.Arguments...)
	}
	return queuedResults{}
}

// Query runs the query after the queued writes (in their round trip on Begin's transactions).
func (d *Deferred) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := d.flushOwn(ctx); err != nil {
		return nil, err
	}
	return d.Tx.Query(ctx, sql, args...)
}

// QueryRow runs the query after the queued writes (in their round trip on Begin's transactions).
func (d *Deferred) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := d.flushOwn(ctx); err != nil {
		return errRow{err}
	}
	return d.Tx.QueryRow(ctx, sql, args...)
}

// CopyFrom sends the queued writes, then copies.
func (d *Deferred) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, rows pgx.CopyFromSource) (int64, error) {
	if err := d.flushOwn(ctx); err != nil {
		return 0, err
	}
	return d.Tx.CopyFrom(ctx, table, columns, rows)
}

// Commit commits after the queued writes (in their round trip on Begin's transactions).
func (d *Deferred) Commit(ctx context.Context) error {
	if err := d.flushOwn(ctx); err != nil {
		return err
	}
	return d.Tx.Commit(ctx)
}

// Flush sends the queued writes in one round trip.
func (d *Deferred) Flush(ctx context.Context) error {
	if d.lazy != nil {
		return d.lazy.flush(ctx)
	}
	return d.flushOwn(ctx)
}

// Close hands the queued writes over to the transaction, for a caller that reads nothing more
// through d. On a transaction begun by Begin they stay queued on it, to go with its next
// statement or with its COMMIT, whose error is then theirs; on another they are sent now, as
// by Flush.
func (d *Deferred) Close(ctx context.Context) error {
	if d.lazy != nil {
		return nil
	}
	return d.flushOwn(ctx)
}

// flushOwn sends the writes d queued itself; a transaction begun by Begin sends its queue
// with its next statement.
func (d *Deferred) flushOwn(ctx context.Context) error {
	if d.queued.Len() == 0 {
		return nil
	}
	b := d.queued
	d.queued = pgx.Batch{}
	if err := d.Tx.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("deferred writes: %w", err)
	}
	return nil
}

var errQueuedRead = errors.New("pgxdb: a deferred batch has no rows to read")

// queuedResults are the results of a batch Deferred queued: nothing to read yet.
type queuedResults struct{}

func (queuedResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, nil }
func (queuedResults) Query() (pgx.Rows, error)         { return nil, errQueuedRead }
func (queuedResults) QueryRow() pgx.Row                { return errRow{errQueuedRead} }
func (queuedResults) Close() error                     { return nil }
func (queuedResults) Tx() pgx.Tx                       { return nil }

// errRow is a row whose Scan reports err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
