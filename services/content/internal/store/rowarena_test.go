package store

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/migrations"
)

// storePool is a fresh migrated content database with the store's pool configuration.
func storePool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	_, url := pgtest.NewDB(t, migrations.Sets()...)
	pool, err := pgxdb.Open(context.Background(), url, ConfigurePool)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// scanned is a row of every kind of column the arena scans, and of some it leaves to pgx.
type scanned struct {
	Text     string
	Varchar  string
	JSONB    json.RawMessage
	NullJSON json.RawMessage
	ID       uuid.UUID
	OptID    *uuid.UUID
	N        int32
	OptN     *int32
	F        float64
	B        bool
	Big      int64
	Tags     []string
	OptTags  []string
	At       time.Time // by pgx's plan
	Label    string    // a uuid as text: by pgx's plan
}

func (s *scanned) dest() []any {
	return []any{&s.Text, &s.Varchar, &s.JSONB, &s.NullJSON, &s.ID, &s.OptID, &s.N, &s.OptN, &s.F, &s.B,
		&s.Big, &s.Tags, &s.OptTags, &s.At, &s.Label}
}

const everyKind = `SELECT
	CASE WHEN i % 7 = 0 THEN '' WHEN i % 7 = 1 THEN repeat('long ü 日本 "q" \ <&> ', 1200) ELSE 'row ' || i || E' \t\n ü 🎬' END,
	('v' || i)::varchar,
	jsonb_build_object('en', 'Field ' || i, 'esc', E'a"b\\c\u2028'),
	NULL::jsonb,
	md5(i::text)::uuid,
	CASE WHEN i % 3 = 0 THEN NULL ELSE md5('o' || i)::uuid END,
	i - 150,
	CASE WHEN i % 2 = 0 THEN NULL ELSE -i END,
	CASE WHEN i % 5 = 0 THEN 'NaN'::float8 WHEN i % 5 = 1 THEN -0.0::float8 ELSE i / 7.0 END,
	i % 2 = 0,
	CASE WHEN i % 2 = 0 THEN -(i::bigint << 40) ELSE i::bigint << 40 END,
	CASE i % 4 WHEN 0 THEN '{}'::text[] WHEN 1 THEN ARRAY['16:9', '9:16'] WHEN 2 THEN ARRAY['', E'ü 日本 "q" \\', repeat('x', 300 + i)] ELSE ARRAY['1:1'] END,
	CASE WHEN i % 3 = 0 THEN NULL ELSE ARRAY[i::text] END,
	'2026-01-02 03:04:05.123456+00'::timestamptz + i * interval '1 minute',
	md5(i::text)::uuid::text
FROM generate_series(1, 300) AS i`

// collect reads every row of query, through the arena when arena is set, after all rows are
// read (so no row's values can be overwritten by a later row's).
func collect(t *testing.T, pool *pgxpool.Pool, query string, arena bool) []scanned {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	if arena {
		rows = &arenaRows{Rows: rows, arena: &rowArena{}}
	}
	defer rows.Close()
	var out []scanned
	for rows.Next() {
		var s scanned
		if err := rows.Scan(s.dest()...); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestArenaRowsScanEveryValueAsPgxDoes(t *testing.T) {
	pool := storePool(t)
	want := collect(t, pool, everyKind, false)
	got := collect(t, pool, everyKind, true)
	if len(got) != 300 || len(want) != 300 {
		t.Fatalf("%d and %d rows", len(got), len(want))
	}
	for i := range want {
		// NaN is not equal to itself: compare the floats' bits.
		if want[i].F != want[i].F && got[i].F != got[i].F {
			want[i].F, got[i].F = 0, 0
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestArenaRowsRefuseWhatPgxRefuses(t *testing.T) {
	pool := storePool(t)
	ctx := context.Background()
	scan := func(arena bool, query string, dest ...any) error {
		rows, err := pool.Query(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if arena {
			rows = &arenaRows{Rows: rows, arena: &rowArena{}}
		}
		if !rows.Next() {
			t.Fatalf("%s: no row (%v)", query, rows.Err())
		}
		return rows.Scan(dest...)
	}
	var s string
	var id uuid.UUID
	var n int32
	var b bool
	var strs []string
	for query, dest := range map[string][]any{
		"SELECT ARRAY['a', NULL]":   {&strs},
		"SELECT NULL::bigint":       {new(int64)},
		"SELECT NULL::text":         {&s},
		"SELECT NULL::uuid":         {&id},
		"SELECT NULL::int4":         {&n},
		"SELECT NULL::bool":         {&b},
		"SELECT 'x'::text, 'y'":     {&s},
		"SELECT 3000000000::bigint": {&n},
	} {
		want := scan(false, query, dest...)
		got := scan(true, query, dest...)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: got %v, want %v", query, got, want)
		}
	}
}

func TestArenaRowsFollowADestinationThatChangesType(t *testing.T) {
	pool := storePool(t)
	rows, err := pool.Query(context.Background(), "SELECT i, 'r' || i FROM generate_series(1, 3) AS i")
	if err != nil {
		t.Fatal(err)
	}
	ar := &arenaRows{Rows: rows, arena: &rowArena{}}
	defer ar.Close()
	var n32 int32
	var n64 int64
	var s string
	var raw []byte
	for i := 1; ar.Next(); i++ {
		if i == 2 {
			err = ar.Scan(&n64, &raw)
		} else {
			err = ar.Scan(&n32, &s)
		}
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if n32 != 3 || s != "r3" || n64 != 2 || string(raw) != "r2" {
		t.Errorf("got %d %q %d %q", n32, s, n64, raw)
	}
}
