package busapi

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// realisticBodies are the messages of a simulated stream: every event kind the service
// consumes (jobs with progress, failures, cancellations, refunds, snapshots, identity).
func realisticBodies(t testing.TB) [][]byte {
	t.Helper()
	st, err := sim.Generate(sim.Options{Tenants: 3, Jobs: 30, Running: 2, ProgressTicks: 2, Snapshots: 4,
		FailRate: 0.3, CancelRate: 0.3, Identity: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([][]byte, 0, len(st.Messages))
	for _, m := range st.Messages {
		bodies = append(bodies, m.Body)
	}
	return bodies
}

// variants are bodies derived from a realistic one (body: an event with user_id and
// correlation_id) that the envelope reader must either read as the generated decoder does or
// leave to it: spacing, escapes, unicode, nulls, absent and repeated fields, wrong types,
// malformed JSON and invalid payloads.
func variants(body string) []string {
	field := func(name string) string { // `"name":value` as the (compact) body has it
		out := ""
		events.ObjectMembers([]byte(body), func(key, raw []byte) bool {
			if string(key) == name {
				out = `"` + name + `":` + string(raw)
			}
			return true
		})
		if !strings.Contains(body, out) {
			panic("the body is not compact JSON: " + out)
		}
		return out
	}
	replace := func(old, new string) string { return strings.Replace(body, old, new, 1) }
	without := func(name string) string {
		f := field(name)
		out := strings.Replace(body, f+",", "", 1)
		return strings.Replace(out, ","+f, "", 1)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(body, "{"), "}")
	return []string{
		" \t\r\n" + body + "\n ",
		"\f" + body, // bytes.TrimSpace removes it, JSON does not allow it
		body + "\v",
		strings.ReplaceAll(body, ",", " , "),
		strings.ReplaceAll(body, ":", " : "),
		`{"extra":{"a":[1,-2.5e+3,0.0,true,false,null,"\u00e9\n\"\\\/"],"b":{}},` + inner + `}`,
		`{"unicode":"héllo wörld ✓ 😀","ctl":"\u0001",` + inner + `}`,
		`{` + inner + `,"trailing":"x"}`,
		replace(`"event_type":"`, `"event\u005ftype":"`),
		replace(`"event_type":"render`, `"event_type":"\u0072ender`),
		replace(`"event_type":"identity`, `"event_type":"\u0069dentity`),
		replace(`"tenant_id":"`, `"tenant_id" : "`),
		replace(field("user_id"), `"user_id":null`),
		replace(field("correlation_id"), `"correlation_id":null`),
		replace(field("user_id"), `"user_id":"00000000-0000-0000-0000-000000000000"`),
		replace(field("event_id"), `"event_id":"00000000-0000-0000-0000-000000000000"`),
		replace(field("tenant_id"), `"tenant_id":"00000000-0000-0000-0000-000000000000"`),
		replace(field("event_id"), strings.ToUpper(field("event_id"))),
		replace(field("event_id"), `"event_id":"not-a-uuid"`),
		replace(field("event_id"), `"event_id":"{`+strings.Repeat("a", 32)+`}"`),
		replace(field("event_id"), `"event_id":12`),
		replace(field("event_time"), `"event_time":"2025-03-01T12:00:00.123456789+02:00"`),
		replace(field("event_time"), `"event_time":"2025-03-01 12:00:00"`),
		replace(field("event_time"), `"event_time":"0001-01-01T00:00:00Z"`),
		replace(field("event_time"), `"event_time":null`),
		replace(field("event_type"), `"event_type":"render.job.unknown.v1"`),
		replace(field("event_type"), `"event_type":"`+strings.Repeat("x", 201)+`"`),
		replace(field("producer"), `"producer":"content-service"`),
		replace(field("producer"), `"producer":"nobody"`),
		replace(field("producer"), `"producer":""`),
		without("producer"),
		without("user_id"),
		without("event_id"),
		without("data"),
		replace(field("data"), `"data":null`),
		replace(field("data"), `"data":[]`),
		replace(field("data"), `"data":{}`),
		replace(field("data"), `"data": `+strings.TrimPrefix(field("data"), `"data":`)+` `),
		body[:len(body)-1] + `,` + field("event_id") + `}`, // a field twice
		body[:len(body)-1] + `,` + field("tenant_id") + `}`,
		body + `{}`,
		body[:len(body)-1],
		body[:len(body)/2],
		`{` + inner + `,}`,
		`{,` + inner + `}`,
		`{"n":01,` + inner + `}`,
		`{"n":1.,` + inner + `}`,
		`{"n":-,` + inner + `}`,
		`{"n":.5,` + inner + `}`,
		`{"n":1e,` + inner + `}`,
		`{"n":tru,` + inner + `}`,
		`{"n":"\x",` + inner + `}`,
		`{"n":"\u12g4",` + inner + `}`,
		"{\"n\":\"tab\there\"," + inner + "}",
		"{\"n\":\"\xff\xfe\"," + inner + "}",
		"{\"\xc3\xa9\":1," + inner + "}",
		`{"n":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,` + inner + `}`,
		`[` + body + `]`,
		``,
		`null`,
		`{}`,
	}
}

func TestTheEnvelopeReaderAgreesWithTheGeneratedDecoder(t *testing.T) {
	bodies := realisticBodies(t)
	check := func(t *testing.T, body []byte) {
		t.Helper()
		got, gotErr := ParseEvent(body)
		want, wantErr := parseGenerated(body)
		switch {
		case (gotErr == nil) != (wantErr == nil):
			t.Fatalf("%s:\nParseEvent error %v, the generated decoder's %v", body, gotErr, wantErr)
		case gotErr != nil && gotErr.Error() != wantErr.Error():
			t.Fatalf("%s:\nParseEvent error %q, the generated decoder's %q", body, gotErr, wantErr)
		case !reflect.DeepEqual(got, want):
			t.Fatalf("%s:\nParseEvent read %+v\nthe generated decoder %+v", body, got, want)
		}
	}
	t.Run("every event kind the service consumes, read by the envelope reader", func(t *testing.T) {
		types := map[string]bool{}
		for _, b := range bodies {
			if _, ok := readEnvelope(b); !ok {
				t.Errorf("a plain body was left to the generated decoder: %s", b)
			}
			ev, err := ParseEvent(b)
			if err != nil {
				t.Fatal(err)
			}
			types[ev.Type] = true
			check(t, b)
		}
		if len(types) < 15 {
			t.Errorf("only %d event types in the stream", len(types))
		}
	})
	t.Run("spacing, escapes, unicode, nulls, absent and repeated fields, bad JSON and payloads", func(t *testing.T) {
		var withUser []byte
		for _, b := range bodies {
			if bytes.Contains(b, []byte(`"user_id"`)) && bytes.Contains(b, []byte(`"correlation_id"`)) {
				withUser = b
				break
			}
		}
		if withUser == nil {
			t.Fatal("no event with a user and a correlation id")
		}
		for _, v := range variants(string(withUser)) {
			check(t, []byte(v))
		}
	})
	t.Run("random corruptions of every kind of event", func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(1, 2))
		alphabet := []byte(`{}[]":,\ -.0123456789eEtrufalsn` + "\x00\x1f\x7f\xc3\xa9")
		for k := 0; k < 3000; k++ {
			b := bytes.Clone(bodies[rnd.IntN(len(bodies))])
			for range 1 + rnd.IntN(3) {
				i := rnd.IntN(len(b))
				switch rnd.IntN(3) {
				case 0:
					b[i] = alphabet[rnd.IntN(len(alphabet))]
				case 1:
					b = append(b[:i], b[i+1:]...)
				default:
					b = append(b[:i], append([]byte{alphabet[rnd.IntN(len(alphabet))]}, b[i:]...)...)
				}
			}
			check(t, b)
		}
	})
}

func BenchmarkParseEvent(b *testing.B) {
	bodies := realisticBodies(b)
	for _, bench := range []struct {
		name  string
		parse func([]byte) error
	}{
		{"envelope reader", func(body []byte) error { _, err := ParseEvent(body); return err }},
		{"generated decoder", func(body []byte) error { _, err := parseGenerated(body); return err }},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := bench.parse(bodies[i%len(bodies)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
