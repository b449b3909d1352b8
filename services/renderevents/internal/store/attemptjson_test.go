package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestAttemptRowsAreEncodedAsEncodingJSONEncodesThem(t *testing.T) {
	at := time.Date(2026, 11, 24, 8, 41, 12, 345678900, time.UTC)
	whole := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	zone := time.Date(2026, 6, 30, 23, 59, 59, 1, time.FixedZone("", -(3*3600+30*60)))
	code, zero, negative, latency := 503, 0, -1, 15000
	errorsOf := []string{
		"endpoint answered 500", "", "Post \"https://hooks.example.com/in?a=1&b=<2>\": dial tcp: lookup hooks.example.com",
		"ünïcødé — 日本語 🎉", "line\nbreak\ttab\r\x00\x1f", "back\\slash", "sep\u2028arator\u2029", "invalid \xff\xfe utf-8",
	}
	var rows []attemptRow
	for i := range errorsOf {
		rows = append(rows, attemptRow{ID: uuid.New(), Status: "retrying", Attempted: 1, ResponseCode: &code, LatencyMS: &latency,
			LastError: &errorsOf[i], NextAttemptAt: &zone, LastAttemptAt: &at, At: at})
	}
	rows = append(rows,
		attemptRow{ID: uuid.New(), Status: "succeeded", Attempted: 1, ResponseCode: &code, LatencyMS: &zero, LastAttemptAt: &whole, At: whole},
		attemptRow{ID: uuid.UUID{}, Status: "failed", LatencyMS: &negative, At: zone},                        // abandoned: never attempted
		attemptRow{ID: uuid.Max, Status: "pending", Attempted: 1 << 40, At: time.Unix(0, 0).UTC()},           // no pointer set
		attemptRow{ID: uuid.New(), Status: "", At: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)}, // the last year encoded
	)
	for _, batch := range [][]attemptRow{nil, {}, rows[:1], rows} {
		want, werr := json.Marshal(batch)
		got, gerr := appendAttemptRows(nil, batch)
		if batch == nil {
			want = []byte("[]") // RecordAttempts never encodes a nil batch; its rows are made with make
		}
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("encoded\n%s (%v)\nwant\n%s (%v)", got, gerr, want, werr)
		}
	}

	for _, year := range []int{-1, 10000} { // refused, as encoding/json refuses them
		bad := []attemptRow{{ID: uuid.New(), Status: "failed", At: time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)}}
		if _, err := json.Marshal(bad); err == nil {
			t.Fatalf("encoding/json encoded year %d", year)
		}
		if _, err := appendAttemptRows(nil, bad); err == nil {
			t.Fatalf("year %d was encoded", year)
		}
	}
}

// BenchmarkAttemptRowsEncoding encodes a record of 256 successes both ways.
func BenchmarkAttemptRowsEncoding(b *testing.B) {
	rows := make([]attemptRow, 256)
	now := time.Now().UTC()
	for i := range rows {
		code, latency := 200, 3
		rows[i] = attemptRow{ID: uuid.New(), Status: "succeeded", Attempted: 1, ResponseCode: &code, LatencyMS: &latency,
			LastAttemptAt: &now, At: now}
	}
	b.Run("appendAttemptRows", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := appendAttemptRows(make([]byte, 0, 320*len(rows)), rows); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(rows); err != nil {
				b.Fatal(err)
			}
		}
	})
}
