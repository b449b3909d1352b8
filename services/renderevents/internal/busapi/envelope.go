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
	var seen fields
	ok = events.ObjectMembers(body, func(key, raw []byte) bool { return seen.set(key, &env, raw) })
	return env, ok && seen.required()
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
