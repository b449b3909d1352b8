package pgxdb_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// library is the smallest schema that lets the real server raise every code Translate reads.
var library = pgxdb.Migrations{Name: "library", FS: fstest.MapFS{
	"00001_library.sql": {Data: []byte(`-- +goose Up
CREATE TABLE shelves (
    id   int PRIMARY KEY,
    name varchar(8) NOT NULL UNIQUE,
    rank int NOT NULL DEFAULT 0 CHECK (rank BETWEEN 0 AND 5)
);
CREATE TABLE books (
    id       int PRIMARY KEY,
    shelf_id int NOT NULL REFERENCES shelves (id),
    title    text NOT NULL
);
INSERT INTO shelves (id, name) VALUES (1, 'one'), (2, 'two');
INSERT INTO books VALUES (1, 1, 'first');
-- +goose Down
DROP TABLE books;
DROP TABLE shelves;
`)},
}}

var (
	errShelfNotFound = errs.E(errs.NotFound, "shelf not found")
	errShelfNameUsed = errs.E(errs.Conflict, "a shelf already has this name")
)

func TestTranslateClassifiesWhatTheServerRaises(t *testing.T) {
	db, _ := pgtest.NewDB(t, library)
	ctx := context.Background()
	exec := func(sql string, args ...any) func(*testing.T) error {
		return func(*testing.T) error { _, err := db.Exec(ctx, sql, args...); return err }
	}
	shelfName := func(id int) func(*testing.T) error {
		return func(*testing.T) error {
			var name string
			return db.QueryRow(ctx, "SELECT name FROM shelves WHERE id = $1", id).Scan(&name)
		}
	}
	classified := errs.E(errs.Forbidden, "not yours")

	cases := []struct {
		name    string
		provoke func(*testing.T) error
		code    string // the SQLSTATE the server raised, when it raised one
		table   pgxdb.Errors
		kind    errs.Kind
		is      error  // errors.Is must hold on the result
		field   string // the field an invalid-input result names
		same    bool   // the result is the cause itself
	}{
		{name: "a missing row is the caller's not-found error", provoke: shelfName(99),
			table: pgxdb.Errors{NotFound: errShelfNotFound}, kind: errs.NotFound, is: errShelfNotFound},
		{name: "a missing row stays pgx.ErrNoRows when the caller names no not-found error", provoke: shelfName(99),
			kind: errs.Internal, is: pgx.ErrNoRows, same: true},
		{name: "a unique violation of a named constraint is its domain error", code: pgxdb.CodeUniqueViolation,
			provoke: exec("INSERT INTO shelves (id, name) VALUES (3, 'one')"),
			table:   pgxdb.Errors{Constraints: map[string]error{"shelves_name_key": errShelfNameUsed}},
			kind:    errs.Conflict, is: errShelfNameUsed},
		{name: "a unique violation of another constraint is a conflict", code: pgxdb.CodeUniqueViolation,
			provoke: exec("INSERT INTO shelves (id, name) VALUES (1, 'new')"),
			table:   pgxdb.Errors{Subject: "shelf", Constraints: map[string]error{"shelves_name_key": errShelfNameUsed}},
			kind:    errs.Conflict},
		{name: "a reference to a missing row is of the kind the caller gives", code: pgxdb.CodeForeignKeyViolation,
			provoke: exec("INSERT INTO books VALUES (2, 99, 'lost')"),
			table:   pgxdb.Errors{Subject: "book", ForeignKey: errs.NotFound}, kind: errs.NotFound},
		{name: "a named foreign key becomes its entry, naming the field", code: pgxdb.CodeForeignKeyViolation,
			provoke: exec("INSERT INTO books VALUES (2, 99, 'lost')"),
			table: pgxdb.Errors{Constraints: map[string]error{
				"books_shelf_id_fkey": errs.InvalidFields(errs.Field("body.shelf_id", "is not an existing shelf"))}},
			kind: errs.Invalid, field: "body.shelf_id"},
		{name: "deleting a row others refer to is a conflict when the caller gives no kind", code: pgxdb.CodeForeignKeyViolation,
			provoke: exec("DELETE FROM shelves WHERE id = 1"), kind: errs.Conflict},
		{name: "a check violation of a named constraint names its field", code: pgxdb.CodeCheckViolation,
			provoke: exec("UPDATE shelves SET rank = 9 WHERE id = 1"),
			table: pgxdb.Errors{Constraints: map[string]error{
				"shelves_rank_check": errs.InvalidFields(errs.Field("body.rank", "must be from 0 to 5"))}},
			kind: errs.Invalid, field: "body.rank"},
		{name: "a check violation of another constraint is invalid input", code: pgxdb.CodeCheckViolation,
			provoke: exec("UPDATE shelves SET rank = 9 WHERE id = 1"), kind: errs.Invalid},
		{name: "a string longer than its column is invalid input", code: pgxdb.CodeStringTooLong,
			provoke: exec("INSERT INTO shelves (id, name) VALUES (4, $1)", "nine-char"), kind: errs.Invalid},
		{name: "text where a number belongs is invalid input", code: pgxdb.CodeInvalidText,
			provoke: exec("UPDATE shelves SET rank = $1::int WHERE id = 1", "three"), kind: errs.Invalid},
		{name: "a NUL character in text is invalid input", code: pgxdb.CodeInvalidByteSequence,
			provoke: exec("INSERT INTO books VALUES (3, 1, $1)", "nul\x00inside"), kind: errs.Invalid},
		{name: "invalid UTF-8 in text is invalid input", code: pgxdb.CodeInvalidByteSequence,
			provoke: exec("INSERT INTO books VALUES (3, 1, $1)", "bad\xffbyte"), kind: errs.Invalid},
		{name: "a serialization failure is retryable", code: pgxdb.CodeSerializationFailure,
			provoke: func(t *testing.T) error { return serializationFailure(t, db) }, kind: errs.Unavailable},
		{name: "a deadlock is retryable", code: pgxdb.CodeDeadlockDetected,
			provoke: func(t *testing.T) error { return deadlock(t, db) }, kind: errs.Unavailable},
		{name: "a statement timeout is retryable", code: pgxdb.CodeQueryCanceled,
			provoke: func(t *testing.T) error { return statementTimeout(t, db) }, kind: errs.Unavailable},
		{name: "the caller's own deadline passes through as the context error",
			provoke: func(*testing.T) error {
				short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
				_, err := db.Exec(short, "SELECT pg_sleep(5)")
				return err
			},
			kind: errs.Internal, is: context.DeadlineExceeded, same: true},
		{name: "any other database error stays internal", code: "42P01",
			provoke: exec("SELECT * FROM no_such_table"), kind: errs.Internal, same: true},
		{name: "an error already classified passes through",
			provoke: func(*testing.T) error { return classified }, kind: errs.Forbidden, is: classified, same: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cause := c.provoke(t)
			if cause == nil {
				t.Fatal("the statement succeeded; want a database error")
			}
			var pgErr *pgconn.PgError
			if errors.As(cause, &pgErr) != (c.code != "") || (c.code != "" && pgErr.Code != c.code) {
				t.Fatalf("the server raised %v; want SQLSTATE %q", cause, c.code)
			}
			got := pgxdb.Translate(cause, c.table)
			if k := errs.KindOf(got); k != c.kind {
				t.Errorf("kind %s, want %s (from %v)", k, c.kind, cause)
			}
			if c.is != nil && !errors.Is(got, c.is) {
				t.Errorf("got %v, want it to match %v", got, c.is)
			}
			if c.same && got != cause { //nolint:errorlint // identity is the point
				t.Errorf("got %v, want the cause itself", got)
			}
			e, classified := errs.As(got)
			if c.field != "" && (!classified || len(e.Fields) != 1 || e.Fields[0].Field != c.field) {
				t.Errorf("got %v, want it to name %s", got, c.field)
			}
			if classified && pgErr != nil && strings.Contains(e.Detail, pgErr.Message) {
				t.Errorf("detail %q carries the database's message", e.Detail)
			}
		})
	}
	if got := pgxdb.Translate(nil, pgxdb.Errors{NotFound: errShelfNotFound}); got != nil {
		t.Errorf("no error translated to %v", got)
	}
}

// serializationFailure updates a row that changed after a repeatable-read transaction took
// its snapshot.
func serializationFailure(t *testing.T, db *pgxpool.Pool) error {
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var rank int
	if err := tx.QueryRow(ctx, "SELECT rank FROM shelves WHERE id = 2").Scan(&rank); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "UPDATE shelves SET rank = rank + 1 WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "UPDATE shelves SET rank = 0 WHERE id = 2")
	return err
}

// deadlock makes two transactions wait for each other's row; the second checks for deadlocks
// first (a short deadlock_timeout) and is the one the server aborts.
func deadlock(t *testing.T, db *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Rollback(context.Background()) }()
	second, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Rollback(context.Background()) }()
	var firstPID int
	if err := first.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&firstPID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		tx  pgx.Tx
		sql string
	}{
		{first, "UPDATE shelves SET name = name WHERE id = 1"},
		{second, "SET LOCAL deadlock_timeout = '10ms'"},
		{second, "UPDATE shelves SET name = name WHERE id = 2"},
	} {
		if _, err := s.tx.Exec(ctx, s.sql); err != nil {
			t.Fatal(err)
		}
	}
	firstDone := make(chan error, 1)
	go func() {
		_, err := first.Exec(ctx, "UPDATE shelves SET name = name WHERE id = 2")
		firstDone <- err
	}()
	for waiting := false; !waiting; {
		if err := db.QueryRow(ctx, "SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1",
			firstPID).Scan(&waiting); err != nil {
			t.Fatalf("waiting for the first transaction to block: %v", err)
		}
	}
	_, err = second.Exec(ctx, "UPDATE shelves SET name = name WHERE id = 1")
	_ = second.Rollback(ctx)
	if firstErr := <-firstDone; firstErr != nil {
		t.Fatalf("the first transaction, which the server let through, failed: %v", firstErr)
	}
	return err
}

// statementTimeout runs a query longer than the transaction's statement_timeout.
func statementTimeout(t *testing.T, db *pgxpool.Pool) error {
	ctx := context.Background()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = '20ms'"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "SELECT pg_sleep(5)")
	return err
}
