package pgxdb_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// openPool opens a pool with opts on a fresh database of the test's own, closed when the test ends.
func openPool(t *testing.T, opts ...pgxdb.PoolOption) *pgxpool.Pool {
	t.Helper()
	_, url := pgtest.NewDB(t)
	pool, err := pgxdb.Open(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// openThings opens a pool on a fresh database holding an empty table things (id int primary
// key), and a function that counts its rows.
func openThings(t *testing.T) (*pgxpool.Pool, func() int) {
	t.Helper()
	ctx := context.Background()
	pool := openPool(t)
	if _, err := pool.Exec(ctx, "CREATE TABLE things (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return pool, func() (n int) {
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM things").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}
