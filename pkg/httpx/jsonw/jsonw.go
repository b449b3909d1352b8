// Package jsonw writes large JSON responses straight from domain values: a small pooled buffer,
// tokens appended field by field, and the bytes handed to the connection every 32 KiB. It is for
// the few hot responses (hundreds of rows) where copying into the generated types' pointer
// fields and encoding by reflection costs more than the database; everything else uses the
// generated types. Each hand-written response is held equal to the generated types' encoding
// of the same data by a test.
package jsonw

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// flushAt is the buffered size at which a streaming writer hands bytes to the connection.
const flushAt = 32 << 10

// buffers recycles the writers' buffers across requests.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, flushAt+4<<10); return &b }}

// Writer appends JSON tokens to B and, when it streams, hands full buffers to its output.
// Key writes `,"name":` (or `"name":` for the first field of an object).
type Writer struct {
	B   []byte
	out io.Writer
	err error
}

// Stream writes a 200 (or status) JSON response produced by write, in chunks of about 32 KiB:
// the response is never held whole in memory.
func Stream(w http.ResponseWriter, status int, write func(*Writer)) error {
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	out := &Writer{B: (*buf)[:0], out: w}
	write(out)
	out.Flush()
	*buf = out.B[:0]
	return out.err
}

// Buffered writes a JSON response produced by write in one piece, with its Content-Length
// (for responses small enough to hold: a page of cards).
func Buffered(w http.ResponseWriter, status int, write func(*Writer)) error {
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	out := &Writer{B: (*buf)[:0]}
	write(out)
	*buf = out.B[:0]
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out.B)))
	w.WriteHeader(status)
	_, err := w.Write(out.B)
	return err
}

// Flush writes the buffered bytes out (after the first error, it only drops them); a writer
// without an output keeps them in B.
func (w *Writer) Flush() {
	if w.out == nil {
		return
	}
	if w.err == nil && len(w.B) > 0 {
		_, w.err = w.out.Write(w.B)
	}
	w.B = w.B[:0]
}

// MaybeFlush flushes once the buffer holds a chunk's worth.
func (w *Writer) MaybeFlush() {
	if w.out != nil && len(w.B) >= flushAt {
		w.Flush()
	}
}

// Open starts an object or array ('{' or '[').
func (w *Writer) Open(c byte) { w.B = append(w.B, c) }

// Close ends an object or array ('}' or ']').
func (w *Writer) Close(c byte) { w.B = append(w.B, c) }

// Comma separates two values of an array.
func (w *Writer) Comma() { w.B = append(w.B, ',') }

// Key writes a field's name; first is true for the first field of an object.
func (w *Writer) Key(name string, first bool) { w.B = appendKey(w.B, name, first) }

// appendKey appends a field's name. The field writers below append the name and the value to a
// local slice and store it in w.B once: every store of a heap pointer costs a write barrier
// while the garbage collector marks, which was a tenth of a large response's CPU.
func appendKey(b []byte, name string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// Null writes a field whose value is null.
func (w *Writer) Null(name string, first bool) { w.B = append(appendKey(w.B, name, first), "null"...) }

// Str writes a string field.
func (w *Writer) Str(name, v string, first bool) { w.B = AppendString(appendKey(w.B, name, first), v) }

// OptStr writes a nullable string: null when unset (the field is never left out).
func (w *Writer) OptStr(name string, v *string) {
	if v == nil {
		w.Null(name, false)
		return
	}
	w.Str(name, *v, false)
}

// ID writes a uuid field.
func (w *Writer) ID(name string, v uuid.UUID, first bool) {
	w.B = AppendUUID(appendKey(w.B, name, first), v)
}

// OptID writes a nullable id: null when unset (the field is never left out).
func (w *Writer) OptID(name string, v *uuid.UUID) {
	if v == nil {
		w.Null(name, false)
		return
	}
	w.ID(name, *v, false)
}

// Int writes an integer field.
func (w *Writer) Int(name string, v int, first bool) { w.Int64(name, int64(v), first) }

// Int64 writes a 64-bit integer field.
func (w *Writer) Int64(name string, v int64, first bool) {
	w.B = strconv.AppendInt(appendKey(w.B, name, first), v, 10)
}

// OptInt writes a nullable integer: null when unset.
func (w *Writer) OptInt(name string, v *int) {
	if v == nil {
		w.Null(name, false)
		return
	}
	w.Int(name, *v, false)
}

// Num writes a number field as encoding/json does (NaN and infinities, which JSON cannot
// carry, as 0).
func (w *Writer) Num(name string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	w.B = strconv.AppendFloat(appendKey(w.B, name, false), v, 'g', -1, 64)
}

// Bool writes a boolean field.
func (w *Writer) Bool(name string, v bool) { w.B = strconv.AppendBool(appendKey(w.B, name, false), v) }

// Time writes a date-time field as encoding/json writes a time.Time (RFC 3339 with the
// nanoseconds it has).
func (w *Writer) Time(name string, v time.Time, first bool) {
	b := append(appendKey(w.B, name, first), '"')
	w.B = append(v.AppendFormat(b, time.RFC3339Nano), '"')
}

// Raw writes stored JSON, or fallback when there is none.
func (w *Writer) Raw(name string, v json.RawMessage, fallback string) {
	w.Key(name, false)
	if len(v) == 0 {
		w.B = append(w.B, fallback...)
		return
	}
	w.B = append(w.B, v...)
}

// Value writes any other value through encoding/json (small, rare parts), or fallback when it
// encodes to null or fails.
func (w *Writer) Value(name string, v any, fallback string) {
	w.Key(name, false)
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		w.B = append(w.B, fallback...)
		return
	}
	w.B = append(w.B, b...)
}

// Strings writes an array of strings (an empty array when there are none).
func (w *Writer) Strings(name string, v []string) {
	w.Key(name, false)
	w.Open('[')
	for i, s := range v {
		if i > 0 {
			w.Comma()
		}
		w.B = AppendString(w.B, s)
	}
	w.Close(']')
}

// List writes the field name as an array of items, each written by each, flushing between
// items once a chunk's worth is buffered.
func List[T any](w *Writer, name string, items []T, each func(*Writer, T)) {
	w.Key(name, false)
	Array(w, items, each)
}

// Array writes items as an array value, each written by each, flushing between items once a
// chunk's worth is buffered: the value of a key already written (the first field of an
// object), an element of an outer array, or a whole document.
func Array[T any](w *Writer, items []T, each func(*Writer, T)) {
	w.Open('[')
	for i, it := range items {
		if i > 0 {
			w.Comma()
		}
		each(w, it)
		w.MaybeFlush()
	}
	w.Close(']')
}

const hex = "0123456789abcdef"

// AppendUUID appends id as a quoted canonical string without allocating.
func AppendUUID(b []byte, id uuid.UUID) []byte {
	b = append(b, '"')
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return append(b, '"')
}

// plain marks the bytes a JSON string carries as they are: ASCII from the space on, except the
// quote, the backslash and the HTML-sensitive <, > and & (encoding/json's safe set).
var plain = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendString appends s as a JSON string, escaping what JSON requires (and the HTML-sensitive
// <, >, & and U+2028/U+2029 as encoding/json does); invalid UTF-8 becomes U+FFFD. Runs of
// plain bytes are found by table and copied whole.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
