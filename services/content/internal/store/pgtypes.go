package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// google/uuid's UUID implements sql.Scanner and driver.Valuer, which pgx prefers to its own uuid
// codec: every id would travel as text and be formatted and parsed again. uuidCodec moves the
// 16 bytes directly (ids are most of the columns the aggregate reads read) and leaves every
// other case to pgx's codec.
type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return scanBinaryUUID{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return encodeBinaryUUID{}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

type scanBinaryUUID struct{}

func (scanBinaryUUID) Scan(src []byte, dst any) error {
	if src == nil {
		return fmt.Errorf("cannot scan NULL into *uuid.UUID")
	}
	if len(src) != 16 {
		return fmt.Errorf("invalid length for uuid: %d", len(src))
	}
	copy(dst.(*uuid.UUID)[:], src)
	return nil
}

type encodeBinaryUUID struct{}

func (encodeBinaryUUID) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(uuid.UUID)
	return append(buf, id[:]...), nil
}

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

// registerTypes makes a connection's type map read and write uuid.UUID as binary uuids and
// read jsonb into json.RawMessage without decoding it.
func registerTypes(m *pgtype.Map) {
	m.RegisterType(&pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}})
	m.RegisterType(&pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID,
		Codec: jsonbCodec{&pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: json.Unmarshal}}})
}

// ConfigurePool prepares every connection of a pool for the store (see registerTypes).
func ConfigurePool(cfg *pgxpool.Config) {
	previous := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		registerTypes(conn.TypeMap())
		if previous != nil {
			return previous(ctx, conn)
		}
		return nil
	}
}
