package httpapi

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"
)

// flushAt is the buffered size at which the writer hands bytes to the connection.
const flushAt = 32 << 10

// jsonBuffers recycles the buffers of the hand-written responses across requests.
var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, flushAt+4<<10); return &b }}

// jw appends JSON tokens to b and, when out is set, hands full buffers to it; key writes
// `,"name":` (or `"name":` first in an object).
type jw struct {
	b   []byte
	out io.Writer
	err error
}

// flush writes the buffered bytes out (after the first error, it only drops them).
func (w *jw) flush() {
	if w.out == nil {
		return
	}
	if w.err == nil && len(w.b) > 0 {
		_, w.err = w.out.Write(w.b)
	}
	w.b = w.b[:0]
}

func (w *jw) open(c byte) { w.b = append(w.b, c) }

func (w *jw) close(c byte) { w.b = append(w.b, c) }

func (w *jw) key(name string, first bool) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) str(name, v string, first bool) { w.key(name, first); w.b = appendString(w.b, v) }

func (w *jw) id(name string, v uuid.UUID, first bool) {
	w.key(name, first)
	w.b = appendUUID(w.b, v)
}

// appendUUID appends id as a quoted canonical string without allocating.
func appendUUID(b []byte, id uuid.UUID) []byte {
	b = append(b, '"')
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return append(b, '"')
}

// optID writes a nullable id: null when unset (the field is never left out).
func (w *jw) optID(name string, v *uuid.UUID) {
	if v == nil {
		w.key(name, false)
		w.b = append(w.b, "null"...)
		return
	}
	w.id(name, *v, false)
}

// optInt writes a nullable integer: null when unset.
func (w *jw) optInt(name string, v *int) {
	if v == nil {
		w.key(name, false)
		w.b = append(w.b, "null"...)
		return
	}
	w.int(name, *v, false)
}

func (w *jw) int(name string, v int, first bool) {
	w.key(name, first)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

func (w *jw) num(name string, v float64) {
	w.key(name, false)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	w.b = strconv.AppendFloat(w.b, v, 'g', -1, 64)
}

func (w *jw) bool(name string, v bool) { w.key(name, false); w.b = strconv.AppendBool(w.b, v) }

// raw writes stored JSON, or fallback when there is none.
func (w *jw) raw(name string, v json.RawMessage, fallback string) {
	w.key(name, false)
	if len(v) == 0 {
		w.b = append(w.b, fallback...)
		return
	}
	w.b = append(w.b, v...)
}

// value writes any other value through encoding/json (small, rare parts: options, items).
func (w *jw) value(name string, v any, fallback string) {
	w.key(name, false)
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		w.b = append(w.b, fallback...)
		return
	}
	w.b = append(w.b, b...)
}

func list[T any](w *jw, name string, items []T, each func(*jw, T)) {
	w.key(name, false)
	w.open('[')
	for i, it := range items {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		each(w, it)
		if w.out != nil && len(w.b) >= flushAt {
			w.flush()
		}
	}
	w.close(']')
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string, escaping what JSON requires (and the HTML-sensitive
// <, >, & and U+2028/U+2029 as encoding/json does); invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
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
