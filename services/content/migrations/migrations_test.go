package migrations_test

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/migrations"
)

// versions lists the version numbers of the embedded migration files, in file order.
func versions(t *testing.T) []int64 {
	t.Helper()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(names))
	for i, n := range names {
		if _, err := fmt.Sscanf(n, "%05d_", &out[i]); err != nil {
			t.Fatalf("%s does not start with a five-digit version: %v", n, err)
		}
	}
	return out
}

func TestTheMigrationsAreOneSequenceFromOne(t *testing.T) {
	got := versions(t)
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("versions %v: file %d has version %d, want %d (one sequence, no gaps)", got, i+1, v, i+1)
		}
	}
}

func TestGooseRecordsEveryMigrationInTheContentVersionTable(t *testing.T) {
	pool, _ := pgtest.NewDB(t, migrations.Sets()...)
	rows, err := pool.Query(context.Background(), "SELECT version_id FROM goose_content WHERE is_applied AND version_id > 0 ORDER BY version_id")
	if err != nil {
		t.Fatal(err)
	}
	var applied []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		applied = append(applied, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := versions(t); !slices.Equal(applied, want) {
		t.Fatalf("goose_content records %v, want %v", applied, want)
	}
}
