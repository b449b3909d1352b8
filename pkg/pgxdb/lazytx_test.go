package pgxdb_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
)

// writeCounter counts the writes of the pool's connections to the server: a round trip is one
// write (pgx sends a statement, or a whole batch, in one).
type writeCounter struct{ n atomic.Int64 }

func (w *writeCounter) option(c *pgxpool.Config) {
	dial := c.ConnConfig.DialFunc
	c.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countedConn{Conn: conn, n: &w.n}, nil
	}
}

type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countedConn) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}

// TestATransactionBeginsInItsFirstStatementsRoundTrip walks each way a transaction's first
// statement can be sent (Exec, Query, QueryRow, SendBatch): each costs one round trip with its
// BEGIN, and COMMIT one more; a transaction that runs nothing costs none. What the statements
// do, their errors and their rows are those of a transaction begun on its own.
func TestATransactionBeginsInItsFirstStatementsRoundTrip(t *testing.T) {
	ctx := context.Background()
	var writes writeCounter
	pool := openPool(t, pgxdb.MaxConns(1), writes.option)
	if _, err := pool.Exec(ctx, "CREATE TABLE things (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM things").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const insert = "INSERT INTO things VALUES ($1)"
	firsts := map[string]func(tx pgx.Tx, id int) error{
		"Exec": func(tx pgx.Tx, id int) error {
			tag, err := tx.Exec(ctx, insert, id)
			if err == nil && tag.RowsAffected() != 1 {
				t.Errorf("Exec: %d rows affected, want 1", tag.RowsAffected())
			}
			return err
		},
		"Query": func(tx pgx.Tx, id int) error {
			rows, err := tx.Query(ctx, insert+" RETURNING id", id)
			if err != nil {
				return err
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[int])
			if err == nil && (len(got) != 1 || got[0] != id) {
				t.Errorf("Query: rows %v, want [%d]", got, id)
			}
			return err
		},
		"QueryRow": func(tx pgx.Tx, id int) error {
			var got int
			err := tx.QueryRow(ctx, insert+" RETURNING id", id).Scan(&got)
			if err == nil && got != id {
				t.Errorf("QueryRow: %d, want %d", got, id)
			}
			return err
		},
		"SendBatch": func(tx pgx.Tx, id int) error {
			b := &pgx.Batch{}
			b.Queue(insert, id)
			var got int
			b.Queue("SELECT count(*) FROM things WHERE id = $1", id).QueryRow(func(row pgx.Row) error {
				return row.Scan(&got)
			})
			err := tx.SendBatch(ctx, b).Close()
			if err == nil && got != 1 {
				t.Errorf("SendBatch: the batch's second statement saw %d rows, want 1", got)
			}
			return err
		},
	}
	id := 0
	for name, first := range firsts {
		// Once to prepare the statements on the connection, once measured.
		for run := range 2 {
			id++
			rows := count()
			before := writes.n.Load()
			err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error { return first(tx, id) })
			if err != nil {
				t.Fatalf("%s first: %v", name, err)
			}
			if trips := writes.n.Load() - before; run == 1 && trips != 2 {
				t.Errorf("%s first: the transaction took %d round trips, want 2 (BEGIN with the statement, COMMIT)", name, trips)
			}
			if got := count(); got != rows+1 {
				t.Fatalf("%s first: %d rows after the commit, want %d", name, got, rows+1)
			}
		}
	}

	// A transaction that runs nothing reaches no server.
	before := writes.n.Load()
	if err := pgxdb.WithTx(ctx, pool, func(pgx.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if trips := writes.n.Load() - before; trips != 0 {
		t.Errorf("an empty transaction took %d round trips, want 0", trips)
	}

	// A failing first statement fails the transaction: nothing is kept, and the one
	// connection goes back to the pool usable.
	rows := count()
	err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insert, 1); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, insert, 1000)
		return err
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || count() != rows {
		t.Fatalf("a duplicate first: err %v, rows %d, want unique_violation and %d rows", err, count(), rows)
	}
	// A failing later statement undoes the first.
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insert, 1000); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, insert, 1)
		return err
	})
	if !errors.As(err, &pgErr) || count() != rows {
		t.Fatalf("a duplicate second: err %v, rows %d, want an error and %d rows", err, count(), rows)
	}
	// A BEGIN the server refuses is the first statement's error, and the statement does not run.
	bogus := pgx.TxOptions{IsoLevel: "bogus"}
	err = pgxdb.WithTxOptions(ctx, pool, bogus, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, insert, 1001)
		return err
	})
	if !errors.As(err, &pgErr) || pgErr.Code != "42601" || count() != rows {
		t.Fatalf("a refused BEGIN: err %v, rows %d, want a syntax error and %d rows", err, count(), rows)
	}
	// The options hold: a read-only transaction refuses the write its first statement makes.
	err = pgxdb.WithTxOptions(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, insert, 1002)
		return err
	})
	if !errors.As(err, &pgErr) || pgErr.Code != "25006" {
		t.Fatalf("a read-only transaction's write: err %v, want read_only_sql_transaction", err)
	}
	// A first query with no row is pgx.ErrNoRows; one with a query option begins on its own.
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, "SELECT id FROM things WHERE id = -1").Scan(&n); !errors.Is(err, pgx.ErrNoRows) {
			t.Errorf("no row: %v, want pgx.ErrNoRows", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, insert, pgx.QueryExecModeSimpleProtocol, 1003)
		return err
	})
	if err != nil || count() != rows+1 {
		t.Fatalf("a first statement with a query option: err %v, rows %d, want %d", err, count(), rows+1)
	}
	// Every transaction gave its connection back.
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("%d connections still acquired", n)
	}

	// A transaction ended before it began is closed like pgx's.
	tx, err := pgxdb.Begin(ctx, pool, pgx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); !errors.Is(err, pgx.ErrTxClosed) {
		t.Errorf("Rollback after Commit: %v, want pgx.ErrTxClosed", err)
	}
	if _, err := tx.Exec(ctx, insert, 1004); !errors.Is(err, pgx.ErrTxClosed) {
		t.Errorf("Exec after Commit: %v, want pgx.ErrTxClosed", err)
	}
}

// TestDeferredWritesTravelWithTheNextStatementOrTheCommit: on a transaction begun by Begin,
// writes deferred by Defer go in the round trip of the next statement, whichever way it is sent,
// or with COMMIT; a refused write, or a refused COMMIT, fails the transaction and leaves nothing
// behind, and the connection goes back to the pool usable.
func TestDeferredWritesTravelWithTheNextStatementOrTheCommit(t *testing.T) {
	ctx := context.Background()
	var writes writeCounter
	pool := openPool(t, pgxdb.MaxConns(1), writes.option)
	if _, err := pool.Exec(ctx, `CREATE TABLE things (id int PRIMARY KEY);
		CREATE TABLE later (id int UNIQUE DEFERRABLE INITIALLY DEFERRED)`); err != nil {
		t.Fatal(err)
	}
	count := func(table string) (n int) {
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const insert = "INSERT INTO things VALUES ($1)"
	// trips runs fn in a transaction twice (once to prepare its statements on the connection)
	// and returns the round trips of the second run and its error.
	trips := func(fn func(tx pgx.Tx) error) (int64, error) {
		_ = pgxdb.WithTx(ctx, pool, fn)
		before := writes.n.Load()
		err := pgxdb.WithTx(ctx, pool, fn)
		return writes.n.Load() - before, err
	}
	id := 100
	next := func() int { id++; return id }

	// A read, then deferred writes: the writes go with COMMIT.
	rows := count("things")
	n, err := trips(func(tx pgx.Tx) error {
		var seen int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM things").Scan(&seen); err != nil {
			return err
		}
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		_, _ = d.Exec(ctx, insert, next())
		return d.Close(ctx)
	})
	if err != nil || n != 2 || count("things") != rows+4 {
		t.Fatalf("read, then writes: %d round trips, %v, %d rows; want 2 (BEGIN with the read, the writes with COMMIT), no error, %d rows",
			n, err, count("things"), rows+4)
	}

	// Deferred writes alone: BEGIN, the writes and COMMIT in one round trip.
	rows = count("things")
	n, err = trips(func(tx pgx.Tx) error {
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		return d.Close(ctx)
	})
	if err != nil || n != 1 || count("things") != rows+2 {
		t.Fatalf("writes alone: %d round trips, %v; want 1, no error, %d rows", n, err, rows+2)
	}

	// Deferred writes, then a read through the transaction itself, then a batch: the read sees
	// the writes and travels with them; the batch travels alone, and COMMIT too.
	rows = count("things")
	n, err = trips(func(tx pgx.Tx) error {
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		if err := d.Close(ctx); err != nil {
			return err
		}
		var mine int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM things WHERE id = $1", id).Scan(&mine); err != nil || mine != 1 {
			t.Errorf("the read after the deferred write saw %d rows of it (%v), want 1", mine, err)
		}
		b := &pgx.Batch{}
		b.Queue(insert, next())
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil || n != 3 || count("things") != rows+4 {
		t.Fatalf("writes, read, batch: %d round trips, %v; want 3, no error, %d rows", n, err, rows+4)
	}

	// A statement a batch cannot carry (COPY) sends the deferred writes first: the COPY of the
	// id a deferred write inserted is refused, and nothing of the transaction stays.
	rows = count("things")
	var copyErr error
	_ = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT 1").Scan(new(int)); err != nil { // begun before the write
			return err
		}
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		_ = d.Close(ctx)
		_, copyErr = tx.CopyFrom(ctx, pgx.Identifier{"things"}, []string{"id"}, pgx.CopyFromRows([][]any{{id}}))
		return copyErr
	})
	if pgErr := (*pgconn.PgError)(nil); !errors.As(copyErr, &pgErr) || pgErr.Code != "23505" || count("things") != rows {
		t.Fatalf("a COPY after a deferred write of the same id: %v, %d rows; want the COPY refused (unique_violation) and %d rows",
			copyErr, count("things"), rows)
	}

	// A refused deferred write fails the commit with its own error: nothing of the transaction
	// stays, and the one connection is usable again.
	rows = count("things")
	before := writes.n.Load()
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insert, next()); err != nil {
			return err
		}
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		_, _ = d.Exec(ctx, insert, id) // taken by the write before
		_, _ = d.Exec(ctx, insert, next())
		return d.Close(ctx)
	})
	refused := writes.n.Load() - before
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || count("things") != rows {
		t.Fatalf("a refused deferred write: %v, %d rows; want unique_violation and %d rows", err, count("things"), rows)
	}
	if refused != 3 {
		t.Errorf("a refused deferred write: %d round trips, want 3 (BEGIN with the first write, the writes with COMMIT, ROLLBACK)", refused)
	}

	// A COMMIT the server refuses (a deferred unique check) is the commit's error; nothing stays.
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, "INSERT INTO later VALUES (1)")
		_, _ = d.Exec(ctx, "INSERT INTO later VALUES (1)")
		return d.Close(ctx)
	})
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || count("later") != 0 {
		t.Fatalf("a refused COMMIT: %v, %d rows; want unique_violation and none", err, count("later"))
	}

	// A transaction rolled back drops its deferred writes, sending nothing that was only queued.
	rows = count("things")
	before = writes.n.Load()
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		_ = d.Close(ctx)
		return errors.New("changed my mind")
	})
	if sent := writes.n.Load() - before; err == nil || count("things") != rows || sent != 0 {
		t.Fatalf("a rolled-back transaction: %v, %d rows, %d round trips; want its error, %d rows, none",
			err, count("things"), sent, rows)
	}

	// A statement that could not get a connection (its context ended first) sent nothing: the
	// deferred writes before it still go with the COMMIT.
	rows = count("things")
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		d := pgxdb.Defer(tx)
		_, _ = d.Exec(ctx, insert, next())
		_ = d.Close(ctx)
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if err := tx.QueryRow(ended, "SELECT 1").Scan(new(int)); !errors.Is(err, context.Canceled) {
			t.Errorf("a read on an ended context: %v, want context.Canceled", err)
		}
		return nil
	})
	if err != nil || count("things") != rows+1 {
		t.Fatalf("writes, then a read that never left: %v, %d rows; want no error and %d rows", err, count("things"), rows+1)
	}

	// Once committed with its writes, the transaction is closed like pgx's.
	tx, err := pgxdb.Begin(ctx, pool, pgx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pgxdb.Defer(tx).Exec(ctx, insert, next())
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); !errors.Is(err, pgx.ErrTxClosed) {
		t.Errorf("Rollback after Commit: %v, want pgx.ErrTxClosed", err)
	}
	if _, err := tx.Exec(ctx, insert, next()); !errors.Is(err, pgx.ErrTxClosed) {
		t.Errorf("Exec after Commit: %v, want pgx.ErrTxClosed", err)
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("%d connections still acquired", n)
	}
}
