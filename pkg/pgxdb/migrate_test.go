package pgxdb_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// Twenty pods' migrate init containers start at once on a fresh database: every one succeeds
// and each migration is applied once (a second CREATE TABLE, or a second insert, would show).
func TestConcurrentMigrationsApplyEachMigrationOnce(t *testing.T) {
	pool, url := pgtest.NewDB(t)
	set := pgxdb.Migrations{Name: "racetest", FS: fstest.MapFS{
		"00001_create.sql": {Data: []byte("-- +goose Up\nCREATE TABLE applied (n int NOT NULL);\n")},
		"00002_count.sql":  {Data: []byte("-- +goose Up\nSELECT pg_sleep(0.2);\nINSERT INTO applied VALUES (1);\n")},
	}}
	slog.SetDefault(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make(chan error, 20)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { errs <- pgxdb.Migrate(ctx, url, set) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a concurrent migrate failed: %v", err)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM applied").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("the second migration ran %d times, want once", n)
	}
}
