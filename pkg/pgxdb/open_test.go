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
