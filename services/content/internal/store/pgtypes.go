package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
)

// jsonbCodec reads a jsonb column into json.RawMessage by copying it: pgx would otherwise run
// encoding/json over every value (the element columns are read as stored and passed through).
type jsonbCodec struct{ *pgtype.JSONBCodec }

func (c jsonbCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*json.RawMessage); ok {
		return scanRawJSONB{binary: format == pgtype.BinaryFormatCode}
	}
	return c.JSONBCodec.PlanScan(m, oid, format, target)
}

type scanRawJSONB struct{ binary bool }

func (p scanRawJSONB) Scan(src []byte, dst any) error {
	out := dst.(*json.RawMessage)
	if src == nil {
		*out = nil
		return nil
	}
	if p.binary {
		// Binary jsonb is a version byte (1) and the JSON text.
		if len(src) == 0 || src[0] != 1 {
			return fmt.Errorf("unknown jsonb format version")
		}
		src = src[1:]
	}
	*out = append(json.RawMessage(nil), src...)
	return nil
}

// ConfigurePool prepares every connection of a pool for the store: uuid.UUID read and written
// as binary uuids (pgxdb.BinaryUUIDs; ids are most of the columns the aggregate reads), and
// jsonb read into json.RawMessage without decoding it.
func ConfigurePool(cfg *pgxpool.Config) {
	pgxdb.BinaryUUIDs(cfg)
	previous := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		conn.TypeMap().RegisterType(&pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID,
			Codec: jsonbCodec{&pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: json.Unmarshal}}})
		return previous(ctx, conn)
	}
}
