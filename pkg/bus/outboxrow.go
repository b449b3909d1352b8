package bus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"

	"github.com/videotpl/platform/pkg/httpx/jsonw"
)

// An outbox row is written on every change that emits an event and read again by the
// forwarder: encoding/json's reflection, base64 and escaping passes cost more than the rest of
// the forwarding in Go. The row is therefore encoded and decoded here by hand, byte for byte as
// encoding/json does for outboxRow (a test holds the two equal on rows of every shape), and a
// row of any other spelling (written by another producer or by hand) is decoded by
// encoding/json.

// encodeOutboxRow returns json.Marshal(r).
func encodeOutboxRow(r outboxRow) []byte {
	b := make([]byte, 0, 96+len(r.DestinationTopic)+len(r.UUID)+base64.StdEncoding.EncodedLen(len(r.Payload))+64*len(r.Metadata))
	b = append(b, `{"destination_topic":`...)
	b = jsonw.AppendString(b, r.DestinationTopic)
	b = append(b, `,"uuid":`...)
	b = jsonw.AppendString(b, r.UUID)
	b = append(b, `,"payload":`...)
	if r.Payload == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, r.Payload)
		b = append(b, '"')
	}
	b = append(b, `,"metadata":`...)
	if r.Metadata == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(r.Metadata)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonw.AppendString(b, k), ':')
			b = jsonw.AppendString(b, r.Metadata[k])
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// decodeOutboxRow reads a row: by hand when it is spelled as encodeOutboxRow (and
// encoding/json) write it, otherwise with encoding/json.
func decodeOutboxRow(data []byte) (outboxRow, error) {
	if r, ok := readOutboxRow(data); ok {
		return r, nil
	}
	var r outboxRow
	err := json.Unmarshal(data, &r)
	return r, err
}

// readOutboxRow decodes the spelling of encodeOutboxRow whose strings hold no escapes; ok is
// false for anything else.
func readOutboxRow(data []byte) (r outboxRow, ok bool) {
	p := rowReader{data: data}
	r.DestinationTopic, ok = p.field(`{"destination_topic":`)
	if !ok {
		return outboxRow{}, false
	}
	if r.UUID, ok = p.field(`,"uuid":`); !ok || !p.literal(`,"payload":`) {
		return outboxRow{}, false
	}
	if !p.literal("null") {
		encoded, ok := p.str()
		if !ok {
			return outboxRow{}, false
		}
		r.Payload = make([]byte, base64.StdEncoding.DecodedLen(len(encoded)))
		n, err := base64.StdEncoding.Decode(r.Payload, encoded)
		if err != nil {
			return outboxRow{}, false
		}
		r.Payload = r.Payload[:n]
	}
	if !p.literal(`,"metadata":`) {
		return outboxRow{}, false
	}
	if !p.literal("null") {
		if !p.literal("{") {
			return outboxRow{}, false
		}
		r.Metadata = map[string]string{}
		for first := true; !p.literal("}"); first = false {
			if !first && !p.literal(",") {
				return outboxRow{}, false
			}
			k, ok := p.str()
			if !ok || !p.literal(":") {
				return outboxRow{}, false
			}
			v, ok := p.str()
			if !ok {
				return outboxRow{}, false
			}
			r.Metadata[string(k)] = string(v)
		}
	}
	if !p.literal("}") || p.pos != len(data) {
		return outboxRow{}, false
	}
	return r, true
}

// rowReader reads the tokens of a row in order.
type rowReader struct {
	data []byte
	pos  int
}

// literal consumes s if the row continues with it.
func (p *rowReader) literal(s string) bool {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(s)) {
		return false
	}
	p.pos += len(s)
	return true
}

// str consumes a string without escapes or control characters and returns its contents.
func (p *rowReader) str() ([]byte, bool) {
	if !p.literal(`"`) {
		return nil, false
	}
	start := p.pos
	for ; p.pos < len(p.data); p.pos++ {
		switch c := p.data[p.pos]; {
		case c == '"':
			s := p.data[start:p.pos]
			p.pos++
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// field consumes key (with what precedes it) and a string value.
func (p *rowReader) field(key string) (string, bool) {
	if !p.literal(key) {
		return "", false
	}
	s, ok := p.str()
	return string(s), ok
}
