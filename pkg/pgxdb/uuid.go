package pgxdb

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BinaryUUIDs makes every connection of the pool write and read uuid.UUID values (and write
// *uuid.UUID ones, nil as NULL) as the 16 bytes of PostgreSQL's binary uuid. google/uuid's UUID implements driver.Valuer and sql.Scanner,
// which pgx prefers to its own codec: each id would be formatted as text, fail the binary plan
// (an error built with fmt.Errorf per value, in COPY too), then parsed again.
func BinaryUUIDs(cfg *pgxpool.Config) {
	previous := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		conn.TypeMap().RegisterType(&pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}})
		if previous != nil {
			return previous(ctx, conn)
		}
		return nil
	}
}

// uuidCodec moves uuid.UUID's bytes directly and leaves every other case to pgx's codec.
type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return scanBinaryUUID{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case uuid.UUID:
			return encodeBinaryUUID{}
		case *uuid.UUID: // a nullable column's value: also a driver.Valuer, which pgx would prefer
			return encodeBinaryUUIDPointer{}
		}
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

type encodeBinaryUUIDPointer struct{}

func (encodeBinaryUUIDPointer) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(*uuid.UUID)
	if id == nil {
		return nil, nil // NULL
	}
	return append(buf, id[:]...), nil
}
