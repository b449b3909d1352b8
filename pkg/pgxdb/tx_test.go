package pgxdb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/videotpl/platform/pkg/pgxdb"
)

func TestWithTxOptionsBeginsAsAskedCommitsOnNilAndRollsBackOnErrorOrPanic(t *testing.T) {
	ctx := context.Background()
	pool, count := openThings(t)
	insert := func(id int) func(pgx.Tx) error {
		return func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO things VALUES ($1)", id)
			return err
		}
	}

	// The BeginQuery's transaction-local setting holds inside the transaction only.
	async := pgx.TxOptions{BeginQuery: "BEGIN; SET LOCAL synchronous_commit = off"}
	err := pgxdb.WithTxOptions(ctx, pool, async, func(tx pgx.Tx) error {
		var setting string
		if err := tx.QueryRow(ctx, "SHOW synchronous_commit").Scan(&setting); err != nil {
			return err
		}
		if setting != "off" {
			t.Errorf("synchronous_commit in the transaction = %q, want off", setting)
		}
		return insert(1)(tx)
	})
	if err != nil || count() != 1 {
		t.Fatalf("committed transaction: err %v, rows %d", err, count())
	}

	// A read-only transaction refuses a write, and nothing is left of it.
	err = pgxdb.WithTxOptions(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, insert(2))
	if err == nil || count() != 1 {
		t.Fatalf("read-only transaction: err %v, rows %d", err, count())
	}

	// An error from fn rolls back what fn wrote and is returned as it is.
	refused := errors.New("refused")
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if err := insert(3)(tx); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) || count() != 1 {
		t.Fatalf("failed transaction: err %v, rows %d", err, count())
	}

	// A panic in fn rolls back too, and goes on up.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic was swallowed")
			}
		}()
		_ = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
			_ = insert(4)(tx)
			panic("boom")
		})
	}()
	if count() != 1 {
		t.Fatalf("after a panic: rows %d", count())
	}
}
