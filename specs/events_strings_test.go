package specs

import (
	"testing"

	"github.com/videotpl/platform/gen/events"
)

// The decoder slices plain JSON strings without unescaping; anything with an escape or a
// non-ASCII byte must still come out exactly as encoding/json would give it.
func TestEventStringsDecodeExactlyWithAndWithoutEscapes(t *testing.T) {
	cases := map[string]string{
		`"plain message"`:                 "plain message",
		`"quote \" and backslash \\ end"`: `quote " and backslash \ end`,
		`"tab\tnewline\n"`:                "tab\tnewline\n",
		`"unicode \u00e9 and é"`:          "unicode é and é",
		`""`:                              "",
	}
	for raw, want := range cases {
		data := `{"render_job_id":"0190b2a4-7c1e-7000-8000-000000000001","failed_at_step":"Rendering","error_message":` + raw + `}`
		p, err := events.Decode(events.RenderJobFailedV1, []byte(data))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got := p.(events.RenderJobFailedV1Payload).ErrorMessage
		if got != want {
			t.Errorf("%s: decoded %q, want %q", raw, got, want)
		}
	}
	if _, err := events.Decode(events.RenderJobFailedV1, []byte(`{"render_job_id":"0190b2a4-7c1e-7000-8000-000000000001","failed_at_step":"Rendering","error_message":42}`)); err == nil {
		t.Error("a number for error_message was accepted")
	}
}
