package pgtest_test

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

var widgets = pgxdb.Migrations{Name: "widgets", FS: fstest.MapFS{
	"00001_widgets.sql": {Data: []byte("-- +goose Up\nCREATE TABLE widgets (id int PRIMARY KEY, name text NOT NULL UNIQUE);\n-- +goose Down\nDROP TABLE widgets;\n")},
}}

func TestEachDatabaseIsFreshAndMigrated(t *testing.T) {
	ctx := context.Background()
	a, _ := pgtest.NewDB(t, widgets)
	b, _ := pgtest.NewDB(t, widgets)
	if _, err := a.Exec(ctx, "INSERT INTO widgets VALUES (1, 'one')"); err != nil {
		t.Fatalf("insert into a: %v", err)
	}
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM widgets").Scan(&n); err != nil {
		t.Fatalf("count in b: %v", err)
	}
	if n != 0 {
		t.Fatalf("database b sees %d rows written to database a; want 0", n)
	}
}

func TestUniqueViolationIsReportedWithItsConstraint(t *testing.T) {
	ctx := context.Background()
	db, _ := pgtest.NewDB(t, widgets)
	_, _ = db.Exec(ctx, "INSERT INTO widgets VALUES (1, 'one')")
	_, err := db.Exec(ctx, "INSERT INTO widgets VALUES (2, 'one')")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != pgxdb.CodeUniqueViolation || pgErr.ConstraintName != "widgets_name_key" {
		t.Fatalf("got %v; want 23505 on widgets_name_key", err)
	}
}

func TestWithTxRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	db, _ := pgtest.NewDB(t, widgets)
	err := pgxdb.WithTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO widgets VALUES (1, 'one')"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO widgets VALUES (1, 'dup')")
		return err
	})
	if err == nil {
		t.Fatal("want the duplicate key error back")
	}
	var n int
	_ = db.QueryRow(ctx, "SELECT count(*) FROM widgets").Scan(&n)
	if n != 0 {
		t.Fatalf("rolled-back transaction left %d rows", n)
	}
}
