package pgxdb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Begin returns a transaction on pool that begins with its first statement: its BEGIN travels
// in that statement's round trip (pgx's Batch.BeginTx) instead of one of its own, and a
// transaction that runs no statement never reaches the server (Commit and Rollback then do
// nothing). Nothing is sent yet, so Begin cannot fail: a failure to begin is the first
// statement's error. The connection is taken from the pool with the first statement and
// returned by Commit or Rollback, one of which must be called, as with pgx's own transactions.
//
// Writes deferred on the transaction (Defer) travel with its next statement, or with its COMMIT:
// a transaction whose last statements are deferred writes ends in their round trip.
//
// A transaction whose opts carry a BeginQuery (which may hold several statements, which a
// batch cannot) begins at once, in a round trip of its own, as do the calls that cannot follow
// a BEGIN in one batch when they come first: CopyFrom, Prepare, a nested Begin, LargeObjects,
// Conn, and a query whose first argument is one of pgx's query options other than a rewriter.
func Begin(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions) (pgx.Tx, error) {
	if opts.BeginQuery != "" {
		return pool.BeginTx(ctx, opts)
	}
	return &lazyTx{pool: pool, opts: opts}, nil
}

// lazyTx is Begin's transaction. tx is nil until the first statement has been sent; from then
// until the transaction ends, conn is its connection and tx pgx's transaction on it. Once
// ended, conn is nil and tx a closed transaction.
type lazyTx struct {
	pool   *pgxpool.Pool
	opts   pgx.TxOptions
	conn   *pgxpool.Conn
	tx     pgx.Tx
	queued pgx.Batch // deferred writes (Defer), sent ahead of the next statement or with COMMIT
}

var _ pgx.Tx = (*lazyTx)(nil)

// ended reports whether Commit or Rollback has ended the transaction.
func (t *lazyTx) ended() bool { return t.tx != nil && t.conn == nil }

// direct reports whether a statement can go straight to pgx's transaction: it has begun and
// nothing waits to be sent before the statement.
func (t *lazyTx) direct() bool { return t.tx != nil && t.queued.Len() == 0 }

// begin makes sure the transaction has begun and nothing waits to be sent, in a round trip of
// its own, for the calls a batch cannot carry.
func (t *lazyTx) begin(ctx context.Context) error {
	if t.queued.Len() > 0 {
		return t.flush(ctx)
	}
	if t.tx != nil {
		return nil
	}
	c, err := t.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	tx, err := c.BeginTx(ctx, t.opts)
	if err != nil {
		c.Release()
		return err
	}
	t.conn, t.tx = c, tx
	return nil
}

// send sends qs in one batch behind what must go before them: BEGIN when the transaction has
// not begun, and the deferred writes. It reads the results of those: the batch's results are
// then at qs[0]. They must be closed before the transaction is used again.
func (t *lazyTx) send(ctx context.Context, qs ...*pgx.QueuedQuery) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	begun := t.tx != nil
	if !begun {
		b.BeginTx(t.opts)
	}
	queued := len(t.queued.QueuedQueries)
	b.QueuedQueries = append(append(b.QueuedQueries, t.queued.QueuedQueries...), qs...)
	var br pgx.BatchResults
	if begun {
		t.queued = pgx.Batch{}
		br = t.tx.SendBatch(ctx, b)
	} else {
		c, err := t.pool.Acquire(ctx)
		if err != nil {
			return nil, err // nothing was sent: the writes wait for the next statement
		}
		t.queued = pgx.Batch{}
		br = c.SendBatch(ctx, b)
		t.conn, t.tx = c, br.Tx()
		if _, err := br.Exec(); err != nil {
			_ = br.Close() // the error to report is the begin's
			return nil, err
		}
	}
	for range queued {
		if _, err := br.Exec(); err != nil {
			_ = br.Close() // the error to report is the write's
			return nil, fmt.Errorf("deferred writes: %w", err)
		}
	}
	return br, nil
}

// flush sends the deferred writes (with BEGIN if the transaction has not begun).
func (t *lazyTx) flush(ctx context.Context) error {
	if t.queued.Len() == 0 {
		return nil
	}
	br, err := t.send(ctx)
	if err != nil {
		return err
	}
	return br.Close()
}

// batchable reports whether a statement with args can follow BEGIN in a batch: a batch takes
// no query options but a rewriter (named arguments among them).
func batchable(args []any) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0].(type) {
	case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID:
		return false
	}
	return true
}

func (t *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.direct() || !batchable(args) {
		if err := t.begin(ctx); err != nil {
			return pgconn.CommandTag{}, err
		}
		return t.tx.Exec(ctx, sql, args...)
	}
	br, err := t.send(ctx, &pgx.QueuedQuery{SQL: sql, Arguments: args})
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (t *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.direct() || !batchable(args) {
		if err := t.begin(ctx); err != nil {
			return errRows{err}, err
		}
		return t.tx.Query(ctx, sql, args...)
	}
	br, err := t.send(ctx, &pgx.QueuedQuery{SQL: sql, Arguments: args})
	if err != nil {
		return errRows{err}, err
	}
	rows, err := br.Query()
	r := &batchRows{Rows: rows, br: br}
	if err != nil {
		r.Close()
		return r, r.Err()
	}
	return r, nil
}

func (t *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, _ := t.Query(ctx, sql, args...) // an error is the rows', reported by Scan
	return firstRow{rows}
}

func (t *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.direct() {
		return t.tx.SendBatch(ctx, b)
	}
	for _, q := range b.QueuedQueries {
		if !batchable(q.Arguments) {
			if err := t.begin(ctx); err != nil {
				return pgx.FailedBatchResults(b, err)
			}
			return t.tx.SendBatch(ctx, b)
		}
	}
	br, err := t.send(ctx, b.QueuedQueries...)
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return begunResults{br}
}

func (t *lazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	return t.tx.CopyFrom(ctx, table, columns, src)
}

func (t *lazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Prepare(ctx, name, sql)
}

// Begin starts a nested transaction (a savepoint), beginning this one first.
func (t *lazyTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Begin(ctx)
}

// LargeObjects begins the transaction (with no deadline: the call takes no context).
func (t *lazyTx) LargeObjects() pgx.LargeObjects {
	_ = t.begin(context.Background()) // a failure shows in the first call on the result
	if t.tx == nil {
		return pgx.LargeObjects{}
	}
	return t.tx.LargeObjects()
}

// Conn begins the transaction (with no deadline: the call takes no context) and returns its
// connection; nil when it could not begin.
func (t *lazyTx) Conn() *pgx.Conn {
	if err := t.begin(context.Background()); err != nil || t.tx == nil {
		return nil
	}
	return t.tx.Conn()
}

// Commit commits what the transaction ran; one that ran nothing has nothing to commit. Deferred
// writes still waiting go with the COMMIT, in one round trip; the first of them that fails is
// the error, and the transaction is rolled back.
func (t *lazyTx) Commit(ctx context.Context) error {
	switch {
	case t.tx == nil && t.queued.Len() == 0:
		t.tx = closedTx()
		return nil
	case t.queued.Len() == 0 || t.ended():
		err := t.tx.Commit(ctx)
		t.end()
		return err
	}
	commit := "COMMIT"
	if t.opts.CommitQuery != "" {
		commit = t.opts.CommitQuery
	}
	br, err := t.send(ctx, &pgx.QueuedQuery{SQL: commit})
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback
	}
	if err != nil && t.conn != nil && t.conn.Conn().PgConn().TxStatus() != 'I' {
		_ = t.tx.Rollback(ctx) // the error to report is the write's or the commit's
	}
	t.end()
	return err
}

// Rollback rolls back what the transaction ran, and drops the deferred writes still waiting; one
// that ran nothing has nothing to undo.
func (t *lazyTx) Rollback(ctx context.Context) error {
	t.queued = pgx.Batch{}
	if t.tx == nil {
		t.tx = closedTx()
		return nil
	}
	err := t.tx.Rollback(ctx)
	t.end()
	return err
}

// end gives the connection back to the pool (which discards it unless it is idle: outside a
// transaction, nothing pending) and leaves the transaction closed.
func (t *lazyTx) end() {
	if t.conn != nil {
		t.conn.Release()
		t.conn = nil
	}
	t.tx = closedTx()
}

// closedTx is pgx's own transaction in the state Commit or Rollback leaves it: every call
// reports pgx.ErrTxClosed. It stands for a lazy transaction that has ended.
func closedTx() pgx.Tx {
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	return pgx.FailedBatchResults(b, pgx.ErrTxClosed).Tx()
}

// begunResults are the results of a caller's batch sent behind BEGIN, whose result has been
// read: they start at the caller's first statement.
type begunResults struct{ pgx.BatchResults }

// Tx is nil: the caller's batch did not begin the transaction itself.
func (begunResults) Tx() pgx.Tx { return nil }

// batchRows are the rows of a statement sent behind BEGIN: the batch is closed with them, at
// the end of the rows or on Close, and an error of closing it is theirs.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// firstRow is QueryRow's row over rows: the first row scanned, the rest discarded, as pgx's.
type firstRow struct{ rows pgx.Rows }

func (r firstRow) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

// errRows are rows that hold err and nothing else.
type errRows struct{ err error }

func (r errRows) Close()                                       {}
func (r errRows) Err() error                                   { return r.err }
func (r errRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (r errRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (r errRows) Next() bool                                   { return false }
func (r errRows) Scan(...any) error                            { return r.err }
func (r errRows) Values() ([]any, error)                       { return nil, r.err }
func (r errRows) RawValues() [][]byte                          { return nil }
func (r errRows) Conn() *pgx.Conn                              { return nil }
func (r errRows) TypeMap() *pgtype.Map                         { return nil }
