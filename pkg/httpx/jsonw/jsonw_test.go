package jsonw_test

import (
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/httpx/jsonw"
)

func TestAppendStringEscapesLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "\"\\/", "\x00\x1f\x7f", "<script>&", "\u2028\u2029", "\xff\xfe ok", "é日本🎬"} {
		want, _ := json.Marshal(s)
		if got := jsonw.AppendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func TestAppendStringEscapesEveryByteAndRandomTextLikeEncodingJSON(t *testing.T) {
	var every []byte
	for c := range 256 {
		every = append(every, byte(c), 'a', byte(c))
	}
	inputs := []string{string(every)}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "Z ", "<", "&", ">", "\"", "\\", "\x00", "\x1f", "\x7f", "é", "日本", "🎬", "\u2028", "\u2029", "\xff", "\xe2\x80", "\xed\xa0\x80"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		want, _ := json.Marshal(s)
		if got := jsonw.AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	}
}

func TestAppendUUIDWritesTheCanonicalForm(t *testing.T) {
	for range 20 {
		id := uuid.New()
		if got := string(jsonw.AppendUUID(nil, id)); got != `"`+id.String()+`"` {
			t.Errorf("got %s, want %s", got, id)
		}
	}
}

// row is written by hand and by encoding/json; the two must agree byte for byte.
type row struct {
	ID      uuid.UUID  `json:"id"`
	Name    string     `json:"name"`
	Parent  *uuid.UUID `json:"parent"`
	Count   int64      `json:"count"`
	Score   float64    `json:"score"`
	Done    bool       `json:"done"`
	At      time.Time  `json:"at"`
	Tags    []string   `json:"tags"`
	Comment *string    `json:"comment"`
}

func writeRow(w *jsonw.Writer, r row) {
	w.Open('{')
	w.ID("id", r.ID, true)
	w.Str("name", r.Name, false)
	w.OptID("parent", r.Parent)
	w.Int64("count", r.Count, false)
	w.Num("score", r.Score)
	w.Bool("done", r.Done)
	w.Time("at", r.At, false)
	w.Strings("tags", r.Tags)
	w.OptStr("comment", r.Comment)
	w.Close('}')
}

func TestStreamWritesWhatEncodingJSONWrites(t *testing.T) {
	parent, comment := uuid.New(), "a <b> & \"c\""
	zone := time.FixedZone("x", 3*3600+1800)
	rows := []row{
		{ID: uuid.New(), Name: "plain", Tags: []string{}, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{ID: uuid.New(), Name: "ü 日本 \u2028 \xff", Parent: &parent, Count: 1 << 50, Score: 1e21, Done: true,
			At: time.Date(2026, 1, 2, 3, 4, 5, 123456789, zone), Tags: []string{"x", "y\n"}, Comment: &comment},
	}
	// Enough rows to cross the flush size several times.
	for i := range 2000 {
		rows = append(rows, row{ID: uuid.New(), Name: strings.Repeat("n", i%50), Score: float64(i) / 7,
			At: time.Unix(int64(i)*1000, int64(i)).UTC(), Tags: []string{"t"}})
	}
	rec := httptest.NewRecorder()
	err := jsonw.Stream(rec, 200, func(w *jsonw.Writer) {
		w.Open('{')
		w.Int("n", len(rows), true)
		jsonw.List(w, "rows", rows, writeRow)
		w.Close('}')
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(struct {
		N    int   `json:"n"`
		Rows []row `json:"rows"`
	}{len(rows), rows})
	if got := rec.Body.String(); got != string(want) {
		t.Fatalf("streamed JSON differs from encoding/json's (%d vs %d bytes)", len(got), len(want))
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}

	rec = httptest.NewRecorder()
	if err := jsonw.Buffered(rec, 201, func(w *jsonw.Writer) { writeRow(w, rows[1]) }); err != nil {
		t.Fatal(err)
	}
	one, _ := json.Marshal(rows[1])
	if rec.Code != 201 || rec.Body.String() != string(one) || rec.Header().Get("Content-Length") != itoa(len(one)) {
		t.Errorf("buffered: %d %s (Content-Length %s), want %s", rec.Code, rec.Body, rec.Header().Get("Content-Length"), one)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestArrayWritesAFirstFieldOrAWholeDocumentAsEncodingJSONDoes(t *testing.T) {
	type group struct {
		Rows []row  `json:"rows"`
		Name string `json:"name"`
	}
	groups := []group{{Rows: []row{}, Name: "empty"}}
	for g := range 3 {
		var rows []row
		for i := range 400 {
			rows = append(rows, row{ID: uuid.New(), Name: strings.Repeat("n", i%50), Tags: []string{},
				At: time.Unix(int64(g*i)*1000, 0).UTC()})
		}
		groups = append(groups, group{Rows: rows, Name: "g"})
	}
	rec := httptest.NewRecorder()
	err := jsonw.Stream(rec, 200, func(w *jsonw.Writer) {
		jsonw.Array(w, groups, func(w *jsonw.Writer, g group) {
			w.Open('{')
			w.Key("rows", true)
			jsonw.Array(w, g.Rows, writeRow)
			w.Str("name", g.Name, false)
			w.Close('}')
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(groups)
	if got := rec.Body.String(); got != string(want) {
		t.Fatalf("streamed JSON differs from encoding/json's (%d vs %d bytes)", len(got), len(want))
	}
}

// BenchmarkAppendString escapes the strings of a content element: short ASCII names and
// values, with a few non-ASCII and escaped ones.
func BenchmarkAppendString(b *testing.B) {
	values := []string{"content_07", "Field 7", "Shown to the user while editing", "text", "Default 7",
		"Roboto Condensed", "center", "", "Überschrift <b>", "https://cdn.videotpl.dev/scenes/0192f0c4-8d2b-7c1e.jpg"}
	n := 0
	for _, v := range values {
		n += len(v)
	}
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, v := range values {
			buf = jsonw.AppendString(buf, v)
		}
	}
}
