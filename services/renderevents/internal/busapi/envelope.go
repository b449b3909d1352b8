package busapi

import (
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
)

// readEnvelope reads the envelope of a message body in one pass over its bytes, data kept as
// a slice of body, where the generated decoder (events.DecodeEvent) runs encoding/json over
// the whole body and then again over data. It reads only the plain shape publishers send: ok
// is false for anything else (a syntax error, an escaped or non-ASCII key or value of an
// envelope field, a field given twice, a null, a value the envelope schema refuses), and the
// caller then asks the generated decoder, whose verdict stands. So whatever it accepts, the
// generated decoder accepts with the same result (TestTheEnvelopeReaderAgreesWithTheGeneratedDecoder).
func readEnvelope(body []byte) (env events.EventEnvelope, ok bool) {
	s := scanner{b: body}
	s.space()
	if !s.consume('{') {
		return env, false
	}
	var seen fields
	s.space()
	if s.consume('}') {
		return env, false // no required field
	}
	for {
		s.space()
		key, plain, good := s.str()
		if !good || !plain || !s.colon() {
			return env, false
		}
		start := s.i
		if !s.value(0) {
			return env, false
		}
		if !seen.set(key, &env, body[start:s.i]) {
			return env, false
		}
		s.space()
		if s.consume(',') {
			continue
		}
		if !s.consume('}') {
			return env, false
		}
		break
	}
	s.space()
	return env, s.i == len(body) && seen.required()
}

// fields records which envelope fields were read.
type fields uint16

const (
	fieldEventID fields = 1 << iota
	fieldEventType
	fieldEventTime
	fieldTenantID
	fieldData
	fieldUserID
	fieldTraceID
	fieldCorrelationID
	fieldProducer
)

func (f fields) required() bool {
	const all = fieldEventID | fieldEventType | fieldEventTime | fieldTenantID | fieldData
	return f&all == all
}

// set reads raw, the value of key, into env; false when the generated decoder must judge it.
// Unknown keys are ignored, as the generated decoder ignores them.
func (f *fields) set(key []byte, env *events.EventEnvelope, raw []byte) bool {
	var (
		field fields
		ok    bool
	)
	switch string(key) {
	case "event_id":
		field = fieldEventID
		env.EventID, ok = plainUUID(raw)
		ok = ok && env.EventID != uuid.Nil
	case "event_type":
		field = fieldEventType
		var s []byte
		s, ok = plainString(raw)
		ok = ok && len(s) <= 200 // plain strings are ASCII: bytes are characters
		env.EventType = string(s)
	case "event_time":
		field = fieldEventTime
		env.EventTime, ok = plainTime(raw)
		ok = ok && !env.EventTime.IsZero()
	case "tenant_id":
		field = fieldTenantID
		env.TenantID, ok = plainUUID(raw)
		ok = ok && env.TenantID != uuid.Nil
	case "data":
		field = fieldData
		ok = raw[0] == '{'
		env.Data = raw
	case "user_id":
		field = fieldUserID
		env.UserID, ok = optionalUUID(raw)
	case "trace_id":
		field = fieldTraceID
		env.TraceID, ok = optionalUUID(raw)
	case "correlation_id":
		field = fieldCorrelationID
		env.CorrelationID, ok = optionalUUID(raw)
	case "producer":
		field = fieldProducer
		var s []byte
		s, ok = plainString(raw)
		p := events.Producer(s)
		ok = ok && p.Valid()
		env.Producer = &p
	default:
		return true
	}
	if *f&field != 0 {
		return false // given twice: encoding/json keeps the last, the generated decoder says so
	}
	*f |= field
	return ok
}

// plainString is the content of raw when it is a string of printable ASCII without escapes.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	for _, c := range s {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return nil, false
		}
	}
	return s, true
}

func plainUUID(raw []byte) (uuid.UUID, bool) {
	s, ok := plainString(raw)
	if !ok || len(s) != 36 {
		return uuid.Nil, false
	}
	id, err := uuid.ParseBytes(s)
	return id, err == nil
}

func optionalUUID(raw []byte) (*uuid.UUID, bool) {
	id, ok := plainUUID(raw)
	return &id, ok
}

func plainTime(raw []byte) (time.Time, bool) {
	s, ok := plainString(raw)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	return t, err == nil
}

// maxDepth bounds the nesting the scanner follows; deeper bodies go to the generated decoder.
const maxDepth = 64

// scanner checks JSON syntax (RFC 8259, as encoding/json does) over b from i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// colon reads the ':' after a key, with the spaces around it.
func (s *scanner) colon() bool {
	s.space()
	if !s.consume(':') {
		return false
	}
	s.space()
	return true
}

// str reads a string; ok is false when it is malformed, plain tells that it is printable
// ASCII without escapes (its content is then the returned bytes).
func (s *scanner) str() (content []byte, plain, ok bool) {
	if !s.consume('"') {
		return nil, false, false
	}
	start := s.i
	plain = true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			if !s.escape() {
				return nil, false, false
			}
		default:
			plain = plain && c < 0x80
			s.i++
		}
	}
	return nil, false, false
}

// escape reads one escape sequence at s.i (the backslash).
func (s *scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 6
		return true
	}
	return false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// value reads one JSON value; false when it is malformed or nested deeper than maxDepth.
func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return false
}

func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	s.consume('-')
	switch {
	case s.consume('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.consume('.') && !s.digits() {
		return false
	}
	if s.consume('e') || s.consume('E') {
		if !s.consume('+') {
			s.consume('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more digits.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scanner) object(depth int) bool {
	s.i++ // '{'
	s.space()
	if s.consume('}') {
		return true
	}
	for {
		s.space()
		if _, _, ok := s.str(); !ok || !s.colon() || !s.value(depth) {
			return false
		}
		s.space()
		if s.consume(',') {
			continue
		}
		return s.consume('}')
	}
}

func (s *scanner) array(depth int) bool {
	s.i++ // '['
	s.space()
	if s.consume(']') {
		return true
	}
	for {
		s.space()
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.consume(',') {
			continue
		}
		return s.consume(']')
	}
}
