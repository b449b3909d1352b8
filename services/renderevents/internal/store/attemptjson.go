package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/videotpl/platform/pkg/httpx/jsonw"
)

// appendAttemptRows appends rows as encoding/json writes them (the same bytes, which a test holds),
// without its reflection: the recorder encodes every outcome of the dispatcher's hot path. Strings
// are escaped by jsonw as encoding/json escapes them; a time it refuses (a year outside 0..9999)
// is handed to it for its error.
func appendAttemptRows(b []byte, rows []attemptRow) ([]byte, error) {
	b = append(b, '[')
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendAttemptRow(b, r); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendAttemptRow(b []byte, r attemptRow) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonw.AppendUUID(b, r.ID)
	b = append(b, `,"status":`...)
	b = jsonw.AppendString(b, r.Status)
	b = append(b, `,"attempted":`...)
	b = strconv.AppendInt(b, int64(r.Attempted), 10)
	b = append(b, `,"response_code":`...)
	b = appendIntOrNull(b, r.ResponseCode)
	b = append(b, `,"latency_ms":`...)
	b = appendIntOrNull(b, r.LatencyMS)
	b = append(b, `,"last_error":`...)
	if r.LastError == nil {
		b = append(b, "null"...)
	} else {
		b = jsonw.AppendString(b, *r.LastError)
	}
	b = append(b, `,"next_attempt_at":`...)
	if b, err = appendTimeOrNull(b, r.NextAttemptAt); err != nil {
		return nil, err
	}
	b = append(b, `,"last_attempt_at":`...)
	if b, err = appendTimeOrNull(b, r.LastAttemptAt); err != nil {
		return nil, err
	}
	b = append(b, `,"at":`...)
	if b, err = appendTime(b, r.At); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendIntOrNull(b []byte, v *int) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*v), 10)
}

func appendTimeOrNull(b []byte, t *time.Time) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	return appendTime(b, *t)
}

// appendTime appends t as time.Time's MarshalJSON does (RFC 3339 with nanoseconds, trailing
// zeros dropped); a year it refuses goes to it for its error.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		return appendMarshalled(b, t)
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

func appendMarshalled(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}
