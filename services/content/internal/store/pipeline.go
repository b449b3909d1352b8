package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	contentdb "github.com/videotpl/platform/gen/db/content"
)

// errPipelineMismatch reports a read that asked for other queries the second time, because
// its queries depend on earlier results; such a read must run plainly.
var errPipelineMismatch = errors.New("store: pipelined read asked for different queries")

var errNotARead = errors.New("store: a pipelined read may only run queries")

// pipelined runs read, whose database work through db is a fixed sequence of queries (the
// generated ones, or their SQL scanned by hand), with all of them sent to PostgreSQL in one
// round trip. A first run records each query (it sees no rows); the recorded queries go out as
// one batch on tx; a second run is handed each result in turn, its rows scanning their values
// into one arena (rowArena). The generated queries stay the single place where the SQL lives.
func pipelined(ctx context.Context, tx pgx.Tx, read func(db contentdb.DBTX) error) error {
	rec := &recorder{}
	if err := read(rec); err != nil {
		return err
	}
	batch := &pgx.Batch{}
	for _, c := range rec.calls {
		batch.Queue(c.sql, c.args...)
	}
	results := tx.SendBatch(ctx, batch)
	err := read(&replayer{calls: rec.calls, results: results, arena: &rowArena{}})
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	return err
}

type recordedQuery struct {
	sql  string
	args []any
}

// recorder captures the queries of a read and answers each with no rows.
type recorder struct{ calls []recordedQuery }

func (r *recorder) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	r.calls = append(r.calls, recordedQuery{sql: sql, args: args})
	return emptyRows{}, nil
}

func (r *recorder) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, errNotARead
}

func (r *recorder) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{errNotARead} }

// replayer hands a read the batch's results in the order its queries were recorded.
type replayer struct {
	calls   []recordedQuery
	results pgx.BatchResults
	next    int
	arena   *rowArena
}

func (r *replayer) Query(_ context.Context, sql string, _ ...any) (pgx.Rows, error) {
	if r.next >= len(r.calls) || r.calls[r.next].sql != sql {
		return nil, errPipelineMismatch
	}
	r.next++
	rows, err := r.results.Query()
	if err != nil {
		return rows, err
	}
	return &arenaRows{Rows: rows, arena: r.arena}, nil
}

func (r *replayer) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, errNotARead
}

func (r *replayer) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{errNotARead} }

type emptyRows struct{}

func (emptyRows) Close() {}

func (emptyRows) Err() error { return nil }

func (emptyRows) CommandTag() pgconn.CommandTag { return pgconn.CommandTag{} }

func (emptyRows) FieldDescriptions() []pgconn.FieldDescription { return nil }

func (emptyRows) Next() bool { return false }

func (emptyRows) Scan(...any) error { return errNotARead }

func (emptyRows) Values() ([]any, error) { return nil, errNotARead }

func (emptyRows) RawValues() [][]byte { return nil }

func (emptyRows) Conn() *pgx.Conn { return nil }

func (emptyRows) TypeMap() *pgtype.Map { return nil }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
