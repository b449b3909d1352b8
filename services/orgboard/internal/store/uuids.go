package store

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
)

// queries are the generated queries on db, their uuid arguments and columns written and read
// as pgx's 16 binary bytes. pgx knows uuid.UUID only as a sql.Scanner and a driver.Valuer: a
// uuid read is formatted as a string and parsed back, and a uuid argument is formatted, refused
// by the binary encoder (an error built with fmt), parsed and encoded again. On a board of 250
// items that was about a third of the rows' decoding.
func queries(db orgboarddb.DBTX) *orgboarddb.Queries { return orgboarddb.New(binaryUUIDs{db}) }

// binaryUUIDs rewrites the uuid arguments of db's queries (uuidArgs) and hands their rows to
// binaryUUIDRows. The argument lists it rewrites are the generated code's own.
type binaryUUIDs struct{ orgboarddb.DBTX }

func (d binaryUUIDs) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return d.DBTX.Exec(ctx, sql, uuidArgs(args)...)
}

func (d binaryUUIDs) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := d.DBTX.Query(ctx, sql, uuidArgs(args)...)
	return binaryUUIDRows{rows}, err
}

func (d binaryUUIDs) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return binaryUUIDRow{d.DBTX.QueryRow(ctx, sql, uuidArgs(args)...)}
}

// uuidArgs replaces the uuid arguments of args (nullable or not) by pgtype.UUIDs.
func uuidArgs(args []any) []any {
	for i, a := range args {
		switch a := a.(type) {
		case uuid.UUID:
			args[i] = pgtype.UUID{Bytes: a, Valid: true}
		case *uuid.UUID:
			if a == nil {
				args[i] = nil
			} else {
				args[i] = pgtype.UUID{Bytes: *a, Valid: true}
			}
		}
	}
	return args
}

type binaryUUIDRows struct{ pgx.Rows }

func (r binaryUUIDRows) Scan(dest ...any) error { return r.Rows.Scan(uuidScanners(dest)...) }

type binaryUUIDRow struct{ pgx.Row }

func (r binaryUUIDRow) Scan(dest ...any) error { return r.Row.Scan(uuidScanners(dest)...) }

// uuidScanners replaces the uuid destinations of dest (nullable or not) by pgtype.UUIDScanners.
func uuidScanners(dest []any) []any {
	for i, d := range dest {
		switch d := d.(type) {
		case *uuid.UUID:
			dest[i] = (*uuidScanner)(d)
		case **uuid.UUID:
			dest[i] = nullUUIDScanner{d}
		}
	}
	return dest
}

// uuidScanner reads a uuid column into a uuid.UUID (NULL, which a non-null column never holds,
// as the nil uuid).
type uuidScanner uuid.UUID

func (u *uuidScanner) ScanUUID(v pgtype.UUID) error {
	*u = uuidScanner(v.Bytes)
	return nil
}

// nullUUIDScanner reads a nullable uuid column into a *uuid.UUID (nil for NULL).
type nullUUIDScanner struct{ p **uuid.UUID }

func (n nullUUIDScanner) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		*n.p = nil
		return nil
	}
	id := uuid.UUID(v.Bytes)
	*n.p = &id
	return nil
}

var (
	_ pgtype.UUIDScanner = (*uuidScanner)(nil)
	_ pgtype.UUIDScanner = nullUUIDScanner{}
)
