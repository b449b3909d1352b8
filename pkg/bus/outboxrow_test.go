package bus

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestOutboxRowsAreEncodedAndDecodedAsEncodingJSONDoes: on rows of every shape (nil, empty and
// binary payloads; no, empty and many metadata; strings needing escapes, HTML characters,
// non-ASCII and invalid UTF-8), encodeOutboxRow writes json.Marshal's bytes and decodeOutboxRow
// reads back what json.Unmarshal reads, from those bytes and from other spellings of the same
// row (spaces, another key order, escapes), which take encoding/json's path.
func TestOutboxRowsAreEncodedAndDecodedAsEncodingJSONDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "orgboard.task.moved.v1", "01a20c2b-3124-77a7-ab0b-1e19a0f91eaf",
		"00-644ba1bf4cd7ca8a2b21e32da9f1e084-bd51fa6c08baa1ef-01", `quo"te\back`, "<tag>&amp;", "line\nbreak\t\x00",
		"é ünïcode ✓", "bad \xff utf8", "\u2028sep"}
	// Three in four strings are plain ASCII, as events' are: rows the hand reader takes.
	pick := func() string {
		if rng.IntN(4) > 0 {
			return strs[rng.IntN(4)]
		}
		return strs[rng.IntN(len(strs))]
	}
	var rows []outboxRow
	for i := range 300 {
		r := outboxRow{DestinationTopic: pick(), UUID: pick()}
		switch i % 4 {
		case 0: // nil payload
		case 1:
			r.Payload = []byte{}
		case 2:
			r.Payload = []byte(`{"event_type":"orgboard.task.moved.v1","data":{"status":"in_review"}}`)
		default:
			r.Payload = make([]byte, rng.IntN(40))
			for j := range r.Payload {
				r.Payload[j] = byte(rng.UintN(256))
			}
		}
		switch i % 3 {
		case 0: // nil metadata
		case 1:
			r.Metadata = map[string]string{}
		default:
			r.Metadata = map[string]string{}
			for range 1 + rng.IntN(5) {
				r.Metadata[pick()] = pick()
			}
		}
		rows = append(rows, r)
	}
	var handRead int
	for _, r := range rows {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got := encodeOutboxRow(r)
		if !bytes.Equal(got, want) {
			t.Fatalf("encodeOutboxRow(%+v) = %s, json.Marshal writes %s", r, got, want)
		}
		if _, ok := readOutboxRow(got); ok {
			handRead++
		} else if plainRow(r) {
			t.Fatalf("%s, whose strings are plain ASCII, is not read by hand", got)
		}
		var indented bytes.Buffer
		if err := json.Indent(&indented, want, "", " "); err != nil {
			t.Fatal(err)
		}
		reordered := []byte(`{"metadata":` + string(mustMarshal(t, r.Metadata)) + `,"payload":` + string(mustMarshal(t, r.Payload)) +
			`,"uuid":` + string(mustMarshal(t, r.UUID)) + `,"destination_topic":` + string(mustMarshal(t, r.DestinationTopic)) + `}`)
		for _, spelling := range [][]byte{got, indented.Bytes(), reordered} {
			var want outboxRow
			wantErr := json.Unmarshal(spelling, &want)
			got, err := decodeOutboxRow(spelling)
			if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeOutboxRow(%s) = %#v, %v; json.Unmarshal reads %#v, %v", spelling, got, err, want, wantErr)
			}
		}
	}
	if handRead < len(rows)/3 {
		t.Fatalf("only %d of %d rows were read by hand: the comparison hardly tries the hand path", handRead, len(rows))
	}
	for _, bad := range []string{``, `{`, `null`, `{"destination_topic":"a","uuid":"b","payload":"!!","metadata":null}`,
		`{"destination_topic":"a","uuid":"b","payload":null,"metadata":{"k":1}}`, `{"destination_topic":"a","uuid":"b","payload":null,"metadata":null}x`} {
		var want outboxRow
		wantErr := json.Unmarshal([]byte(bad), &want)
		got, err := decodeOutboxRow([]byte(bad))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeOutboxRow(%s) = %#v, %v; json.Unmarshal reads %#v, %v", bad, got, err, want, wantErr)
		}
	}
}

// plainRow reports whether r's strings need no escapes: the rows the hand reader must take.
func plainRow(r outboxRow) bool {
	plain := func(s string) bool {
		for _, c := range []byte(s) {
			if c >= utf8.RuneSelf {
				return false
			}
		}
		return string(mustMarshalString(s)) == `"`+s+`"`
	}
	ok := plain(r.DestinationTopic) && plain(r.UUID)
	for k, v := range r.Metadata {
		ok = ok && plain(k) && plain(v)
	}
	return ok
}

func mustMarshalString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkOutboxRow writes and reads a row of a task move's size, by hand and by encoding/json.
func BenchmarkOutboxRow(b *testing.B) {
	r := outboxRow{DestinationTopic: "orgboard.task.moved.v1", UUID: "01a20c2b-3124-77a7-ab0b-1e19a0f91eaf",
		Payload: bytes.Repeat([]byte(`{"k":"v"}`), 90), Metadata: map[string]string{"event_type": "orgboard.task.moved.v1",
			"tenant_id": "6ecc34da-7c05-4a22-ae34-66d5336e56d8", "traceparent": "00-644ba1bf4cd7ca8a2b21e32da9f1e084-bd51fa6c08baa1ef-01"}}
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeOutboxRow(encodeOutboxRow(r)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			data, _ := json.Marshal(r)
			var got outboxRow
			if err := json.Unmarshal(data, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
}
