package pgxdb

import (
	"context"

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

// lazyTx is Begin's transaction: tx is nil until the first statement has been sent.
type lazyTx struct {
	pool *pgxpool.Pool
	opts pgx.TxOptions
	tx   pgx.Tx
}

var _ pgx.Tx = (*lazyTx)(nil)

// begin begins the transaction in a round trip of its own, for the calls a batch cannot carry.
func (t *lazyTx) begin(ctx context.Context) error {
	if t.tx != nil {
		return nil
	}
	tx, err := t.pool.BeginTx(ctx, t.opts)
	if err != nil {
		return err
	}
	t.tx = tx
	return nil
}

// sendBegun sends BEGIN and qs in one batch and reads BEGIN's result: the batch's results are
// then at qs[0]. They must be closed before the transaction is used again.
func (t *lazyTx) sendBegun(ctx context.Context, qs ...*pgx.QueuedQuery) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	b.BeginTx(t.opts)
	b.QueuedQueries = append(b.QueuedQueries, qs...)
	br := t.pool.SendBatch(ctx, b)
	t.tx = br.Tx()
	if _, err := br.Exec(); err != nil {
		_ = br.Close() // the error to report is the begin's
		return nil, err
	}
	return br, nil
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
	if t.tx != nil || !batchable(args) {
		if err := t.begin(ctx); err != nil {
			return pgconn.CommandTag{}, err
		}
		return t.tx.Exec(ctx, sql, args...)
	}
	br, err := t.sendBegun(ctx, &pgx.QueuedQuery{SQL: sql, Arguments: args})
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
	if t.tx != nil || !batchable(args) {
		if err := t.begin(ctx); err != nil {
			return errRows{err}, err
		}
		return t.tx.Query(ctx, sql, args...)
	}
	br, err := t.sendBegun(ctx, &pgx.QueuedQuery{SQL: sql, Arguments: args})
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
	if t.tx != nil {
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
	br, err := t.sendBegun(ctx, b.QueuedQueries...)
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
	if err := t.begin(context.Background()); err != nil {
		return nil
	}
	return t.tx.Conn()
}

// Commit commits what the transaction ran; one that ran nothing has nothing to commit.
func (t *lazyTx) Commit(ctx context.Context) error {
	if t.tx == nil {
		t.tx = closedTx()
		return nil
	}
	return t.tx.Commit(ctx)
}

// Rollback rolls back what the transaction ran; one that ran nothing has nothing to undo.
func (t *lazyTx) Rollback(ctx context.Context) error {
	if t.tx == nil {
		t.tx = closedTx()
		return nil
	}
	return t.tx.Rollback(ctx)
}

// closedTx is pgx's own transaction in the state Commit or Rollback leaves it: every call
// reports pgx.ErrTxClosed. It stands for a lazy transaction that ended before it began.
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
