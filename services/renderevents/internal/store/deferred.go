package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// deferredWrites is the DBTX of a batch's transaction: statements whose results are not read
// (sqlc's :exec and :batchexec) are queued instead of run, and the queue goes to PostgreSQL
// as one batch, in order, before the next read or COPY and at Flush. A read therefore sees
// every earlier write, as on the plain transaction, and a batch of events costs a few round
// trips instead of one per merged event. A queued statement's error is reported by the
// next read or by Flush, which fails the transaction as the statement itself would have.
type deferredWrites struct {
	tx     pgx.Tx
	queued pgx.Batch
}

func (d *deferredWrites) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	d.queued.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

// SendBatch queues the batch's statements (sqlc's :batchexec) behind the others; its
// results report no error: the errors come with Flush.
func (d *deferredWrites) SendBatch(_ context.Context, b *pgx.Batch) pgx.BatchResults {
	for _, q := range b.QueuedQueries {
		d.queued.Queue(q.SQL, q.Arguments...)
	}
	return queuedResults{}
}

func (d *deferredWrites) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := d.Flush(ctx); err != nil {
		return nil, err
	}
	return d.tx.Query(ctx, sql, args...)
}

func (d *deferredWrites) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := d.Flush(ctx); err != nil {
		return errRow{err}
	}
	return d.tx.QueryRow(ctx, sql, args...)
}

func (d *deferredWrites) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, rows pgx.CopyFromSource) (int64, error) {
	if err := d.Flush(ctx); err != nil {
		return 0, err
	}
	return d.tx.CopyFrom(ctx, table, columns, rows)
}

// Flush sends the queued statements in one round trip.
func (d *deferredWrites) Flush(ctx context.Context) error {
	if d.queued.Len() == 0 {
		return nil
	}
	b := d.queued
	d.queued = pgx.Batch{}
	if err := d.tx.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("deferred writes: %w", err)
	}
	return nil
}

// queuedResults are the results of a batch queued by deferredWrites: nothing to read yet.
type queuedResults struct{}

func (queuedResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, nil }
func (queuedResults) Query() (pgx.Rows, error)         { return nil, errQueuedRead }
func (queuedResults) QueryRow() pgx.Row                { return errRow{errQueuedRead} }
func (queuedResults) Close() error                     { return nil }
func (queuedResults) Tx() pgx.Tx                       { return nil }

var errQueuedRead = fmt.Errorf("store: a deferred batch has no rows to read")

// errRow is a row whose Scan reports err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
