package pgxdb_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/videotpl/platform/pkg/pgxdb"
)

func TestUUIDsRoundTripAsBinaryInParametersArraysNullsAndCopy(t *testing.T) {
	ctx := context.Background()
	pool := openPool(t, pgxdb.BinaryUUIDs)
	id, ids := uuid.New(), []uuid.UUID{uuid.New(), uuid.New()}
	var (
		gotID   uuid.UUID
		gotIDs  []uuid.UUID
		gotNull *uuid.UUID
		text    string
	)
	err := pool.QueryRow(ctx, "SELECT $1::uuid, $2::uuid[], $3::uuid, $1::uuid::text", id, ids, (*uuid.UUID)(nil)).
		Scan(&gotID, &gotIDs, &gotNull, &text)
	if err != nil || gotID != id || !slices.Equal(gotIDs, ids) || gotNull != nil || text != id.String() {
		t.Fatalf("got %v %v %v %q (%v), want %v %v nil %q", gotID, gotIDs, gotNull, text, err, id, ids, id)
	}
	if _, err := pool.Exec(ctx, "CREATE TABLE ids (id uuid, maybe uuid)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"ids"}, []string{"id", "maybe"},
		pgx.CopyFromRows([][]any{{id, &ids[0]}, {ids[1], (*uuid.UUID)(nil)}})); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM ids WHERE (id = $1 AND maybe = $2) OR (id = $3 AND maybe IS NULL)",
		id, ids[0], ids[1]).Scan(&n); err != nil || n != 2 {
		t.Fatalf("copied rows found: %d (%v), want 2", n, err)
	}
}

func TestAUUIDOrAPointerToOneIsEncodedWithoutAllocating(t *testing.T) {
	ctx := context.Background()
	pool := openPool(t, pgxdb.BinaryUUIDs)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	m := conn.Conn().TypeMap()
	id := uuid.New()
	buf := make([]byte, 0, 64)
	for _, v := range []any{id, &id, (*uuid.UUID)(nil)} {
		// Through uuid.UUID's driver.Valuer, each value was formatted as text and the binary
		// plan failed with an error built by fmt.
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, v, buf[:0]); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%T: %.0f allocations per value, want none", v, allocs)
		}
	}
	out, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, &id, nil)
	if err != nil || !slices.Equal(out, id[:]) {
		t.Errorf("encoded %x (%v), want %x", out, err, id[:])
	}
	if out, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, (*uuid.UUID)(nil), nil); err != nil || out != nil {
		t.Errorf("nil encoded as %x (%v), want NULL", out, err)
	}
}
