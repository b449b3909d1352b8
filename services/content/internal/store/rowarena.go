package store

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// A rowArena's shared buffers start at firstChunk bytes and double up to arenaChunk: a page of
// cards fills a few KB, a project aggregate hundreds.
const (
	firstChunk = 1 << 10
	arenaChunk = 16 << 10
)

// nextChunk is the capacity of the buffer that follows one of capacity prev, for a value of n.
func nextChunk(prev, n int) int {
	return max(min(2*prev, arenaChunk), firstChunk, n)
}

// rowArena holds the values a read's rows point to: text columns as strings, jsonb columns as
// bytes and nullable ids and integers, each packed into a few shared buffers instead of one
// allocation per value. The project aggregate reads about 15,000 such values; allocated one by
// one they were most of its allocations and of the garbage collector's marking. Nothing
// written to the arena is ever changed: a string or slice handed out stays valid as long as
// anything refers to it.
type rowArena struct {
	text    strings.Builder
	bytes   []byte
	ids     slab[uuid.UUID]
	int32s  slab[int32]
	ints    slab[int]
	strings []string // backs the string slices of text[] columns
}

// string returns src as a string in the arena.
func (a *rowArena) string(src []byte) string {
	if len(src) == 0 {
		return ""
	}
	if len(src) > a.text.Cap()-a.text.Len() {
		// A new buffer: the strings already handed out keep the previous one.
		size := nextChunk(a.text.Cap(), len(src))
		a.text = strings.Builder{}
		a.text.Grow(size)
	}
	start := a.text.Len()
	a.text.Write(src)
	return a.text.String()[start:]
}

// copy returns a copy of src in the arena, its capacity cut so an append never writes into
// the next value.
func (a *rowArena) copy(src []byte) []byte {
	if len(src) > cap(a.bytes)-len(a.bytes) {
		a.bytes = make([]byte, 0, nextChunk(cap(a.bytes), len(src)))
	}
	start := len(a.bytes)
	a.bytes = append(a.bytes, src...)
	return a.bytes[start:len(a.bytes):len(a.bytes)]
}

// stringSlice returns a slice of n strings in the arena, its capacity cut so an append never
// writes into the next value.
func (a *rowArena) stringSlice(n int) []string {
	if n > cap(a.strings)-len(a.strings) {
		a.strings = make([]string, 0, max(64, n))
	}
	start := len(a.strings)
	a.strings = a.strings[:start+n]
	return a.strings[start : start+n : start+n]
}

// slab hands out pointers to values stored side by side, a new block when one is full.
type slab[T any] []T

func (s *slab[T]) put(v T) *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, 64)
	}
	*s = append(*s, v)
	return &(*s)[len(*s)-1]
}

// arenaRows scans the values of the common column types (text, jsonb, uuid, int4 into int32
// or int, int8, float8, bool, text[]; nullable ones too) itself, into the arena, exactly as pgx would with the store's pool
// configuration (ConfigurePool); every other column, and every NULL where pgx would refuse
// it, is scanned by pgx's own plan.
type arenaRows struct {
	pgx.Rows
	arena *rowArena
	// kinds is how each column is scanned, decided at the first row (and again if the
	// destinations change type); plans holds pgx's plans for the columns pgx scans, made for
	// destinations of planTypes.
	kinds     []scanKind
	plans     []pgtype.ScanPlan
	planTypes []reflect.Type
}

type scanKind uint8

const (
	byPlan scanKind = iota
	textToString
	jsonToRaw
	jsonbToRaw // binary jsonb: a version byte, then the JSON text
	uuidToUUID
	uuidToOptUUID
	int4ToInt32
	int4ToOptInt32
	int4ToInt
	int4ToOptInt
	int8ToInt64
	float8ToFloat64
	boolToBool
	textArrayToStrings
)

// kindOf is the way to scan a column of the given type and format into dst.
func kindOf(oid uint32, format int16, dst any) scanKind {
	binary := format == pgtype.BinaryFormatCode
	switch dst.(type) {
	case *string:
		if oid == pgtype.TextOID || oid == pgtype.VarcharOID {
			return textToString
		}
	case *json.RawMessage:
		switch {
		case oid == pgtype.JSONBOID && binary:
			return jsonbToRaw
		case oid == pgtype.JSONBOID:
			return jsonToRaw
		}
	case *uuid.UUID:
		if oid == pgtype.UUIDOID && binary {
			return uuidToUUID
		}
	case **uuid.UUID:
		if oid == pgtype.UUIDOID && binary {
			return uuidToOptUUID
		}
	case *int32:
		if oid == pgtype.Int4OID && binary {
			return int4ToInt32
		}
	case **int32:
		if oid == pgtype.Int4OID && binary {
			return int4ToOptInt32
		}
	case *int:
		if oid == pgtype.Int4OID && binary {
			return int4ToInt
		}
	case **int:
		if oid == pgtype.Int4OID && binary {
			return int4ToOptInt
		}
	case *int64:
		if oid == pgtype.Int8OID && binary {
			return int8ToInt64
		}
	case *[]string:
		if oid == pgtype.TextArrayOID && binary {
			return textArrayToStrings
		}
	case *float64:
		if oid == pgtype.Float8OID && binary {
			return float8ToFloat64
		}
	case *bool:
		if oid == pgtype.BoolOID && binary {
			return boolToBool
		}
	}
	return byPlan
}

// Scan reads the current row into dest, as pgx.Rows.Scan does.
func (r *arenaRows) Scan(dest ...any) error {
	values := r.RawValues()
	fields := r.FieldDescriptions()
	if len(dest) != len(values) || len(fields) != len(values) {
		return r.Rows.Scan(dest...) // pgx reports the mismatch (or scans a RowScanner)
	}
	if len(r.kinds) != len(dest) {
		r.kinds = make([]scanKind, len(dest))
		r.plans = make([]pgtype.ScanPlan, len(dest))
		r.planTypes = make([]reflect.Type, len(dest))
		for i := range dest {
			r.kinds[i] = kindOf(fields[i].DataTypeOID, fields[i].Format, dest[i])
		}
	}
	for i, dst := range dest {
		if dst == nil {
			continue
		}
		if err := r.scanColumn(i, values[i], dst); err != nil {
			return pgx.ScanArgError{ColumnIndex: i, FieldName: fields[i].Name, Err: err}
		}
	}
	return nil
}

// scanColumn scans column i's value src into dst.
func (r *arenaRows) scanColumn(i int, src []byte, dst any) error {
	if r.scanFast(r.kinds[i], src, dst) {
		return nil
	}
	f := r.FieldDescriptions()[i]
	if kind := kindOf(f.DataTypeOID, f.Format, dst); kind != r.kinds[i] {
		// The destination changed type since the first row.
		r.kinds[i] = kind
		if r.scanFast(kind, src, dst) {
			return nil
		}
	}
	if t := reflect.TypeOf(dst); r.plans[i] == nil || r.planTypes[i] != t {
		r.plans[i], r.planTypes[i] = r.TypeMap().PlanScan(f.DataTypeOID, f.Format, dst), t
	}
	return r.plans[i].Scan(src, dst)
}

// scanFast scans src into dst for the kinds scanned here, and reports false for the others,
// for a destination of another type, and for a NULL or malformed value (pgx's plan then
// reports the error it reports).
func (r *arenaRows) scanFast(kind scanKind, src []byte, dst any) bool {
	switch kind {
	case textToString:
		d, ok := dst.(*string)
		if ok && src != nil {
			*d = r.arena.string(src)
			return true
		}
	case jsonToRaw, jsonbToRaw:
		d, ok := dst.(*json.RawMessage)
		if !ok {
			return false
		}
		if src == nil {
			*d = nil
			return true
		}
		if kind == jsonbToRaw {
			if len(src) == 0 || src[0] != 1 {
				return false
			}
			src = src[1:]
		}
		*d = r.arena.copy(src)
		return true
	case uuidToUUID:
		d, ok := dst.(*uuid.UUID)
		if ok && len(src) == 16 {
			*d = uuid.UUID(src)
			return true
		}
	case uuidToOptUUID:
		return scanOptional(dst, src, 16, &r.arena.ids, func(b []byte) uuid.UUID { return uuid.UUID(b) })
	case int4ToInt32:
		d, ok := dst.(*int32)
		if ok && len(src) == 4 {
			*d = int32(binary.BigEndian.Uint32(src))
			return true
		}
	case int4ToOptInt32:
		return scanOptional(dst, src, 4, &r.arena.int32s, func(b []byte) int32 { return int32(binary.BigEndian.Uint32(b)) })
	case int4ToInt:
		d, ok := dst.(*int)
		if ok && len(src) == 4 {
			*d = int(int32(binary.BigEndian.Uint32(src)))
			return true
		}
	case int4ToOptInt:
		return scanOptional(dst, src, 4, &r.arena.ints, func(b []byte) int { return int(int32(binary.BigEndian.Uint32(b))) })
	case int8ToInt64:
		d, ok := dst.(*int64)
		if ok && len(src) == 8 {
			*d = int64(binary.BigEndian.Uint64(src))
			return true
		}
	case textArrayToStrings:
		d, ok := dst.(*[]string)
		return ok && r.scanTextArray(src, d)
	case float8ToFloat64:
		d, ok := dst.(*float64)
		if ok && len(src) == 8 {
			*d = math.Float64frombits(binary.BigEndian.Uint64(src))
			return true
		}
	case boolToBool:
		d, ok := dst.(*bool)
		if ok && len(src) == 1 {
			*d = src[0] == 1
			return true
		}
	}
	return false
}

// scanTextArray reads a binary text[] of at most one dimension without NULL elements into dst
// (empty, not nil, for an empty array, as pgx), its strings in the arena. It reports false for
// anything else (NULL, NULL elements, more dimensions, a malformed value), which pgx's plan
// then scans or refuses.
func (r *arenaRows) scanTextArray(src []byte, dst *[]string) bool {
	if len(src) < 12 {
		return false
	}
	ndim := binary.BigEndian.Uint32(src)
	if hasNull := binary.BigEndian.Uint32(src[4:]); ndim > 1 || hasNull != 0 {
		return false
	}
	if ndim == 0 {
		*dst = []string{}
		return len(src) == 12
	}
	if len(src) < 20 {
		return false
	}
	n := binary.BigEndian.Uint32(src[12:])
	rest := src[20:]
	if uint64(n)*4 > uint64(len(rest)) {
		return false
	}
	out := r.arena.stringSlice(int(n))
	for i := range out {
		if len(rest) < 4 {
			return false
		}
		size := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(size) > uint64(len(rest)) {
			return false // a NULL element (size -1) or a malformed value
		}
		out[i] = r.arena.string(rest[:size])
		rest = rest[size:]
	}
	if len(rest) != 0 {
		return false
	}
	*dst = out
	return true
}

// scanOptional scans a nullable fixed-size value into dst, a **T: nil for NULL, else a pointer
// into slab to the value decode reads from src's size bytes. It reports false for another
// destination type or a malformed value.
func scanOptional[T any](dst any, src []byte, size int, slab *slab[T], decode func([]byte) T) bool {
	d, ok := dst.(**T)
	if !ok {
		return false
	}
	switch {
	case src == nil:
		*d = nil
	case len(src) == size:
		*d = slab.put(decode(src))
	default:
		return false
	}
	return true
}
