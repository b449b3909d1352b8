package pgxdb_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/videotpl/platform/pkg/pgxdb"
)

func TestDeferredWritesAreSeenByTheNextReadAndFailTheTransactionWhenRefused(t *testing.T) {
	ctx := context.Background()
	pool, count := openThings(t)

	// Queued writes, by Exec and by SendBatch, are seen by a read in the same transaction and
	// committed by Commit without an explicit Flush.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := pgxdb.Defer(tx)
	if _, err := d.Exec(ctx, "INSERT INTO things VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var b pgx.Batch
	b.Queue("INSERT INTO things VALUES (2)")
	if err := d.SendBatch(ctx, &b).Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("another connection sees %d rows before the commit", n)
	}
	var seen int
	if err := d.QueryRow(ctx, "SELECT count(*) FROM things").Scan(&seen); err != nil || seen != 2 {
		t.Fatalf("the read inside the transaction saw %d rows (%v), want the 2 queued before it", seen, err)
	}
	if _, err := d.Exec(ctx, "INSERT INTO things VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d rows after the commit, want 3 (the last write queued after the read too)", n)
	}

	// A queued write the database refuses fails the next read, and nothing of the transaction
	// stays.
	tx, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d = pgxdb.Defer(tx)
	_, _ = d.Exec(ctx, "INSERT INTO things VALUES (4)")
	_, _ = d.Exec(ctx, "INSERT INTO things VALUES (1)") // taken
	if err := d.QueryRow(ctx, "SELECT 1").Scan(new(int)); err == nil {
		t.Fatal("a read after a refused queued write must fail")
	}
	_ = tx.Rollback(ctx)
	if n := count(); n != 3 {
		t.Fatalf("%d rows after the failed transaction, want 3", n)
	}
}
