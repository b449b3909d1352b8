package httpx_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
)

func TestGuardsAnswerBadInputWithA400NamingTheField(t *testing.T) {
	f := newServer(t, nil)
	tok := f.jwt(t)
	notes := "/v1/things/" + uuid.NewString() + "/notes"
	long := strings.Repeat("A", 60)
	tests := []struct {
		name, path, body string
		header           []string
		field, message   string
	}{
		{"a NUL in a JSON string", notes, `{"text": "a\u0000b"}`, nil, "body.text", "must not contain a NUL character"},
		{"a NUL deep in the document", notes, `{"text": "a", "meta": {"origin": "x\u0000"}}`, nil, "body.meta.origin", "must not contain a NUL character"},
		{"a NUL in an array item", notes, `{"text": "a", "tags": ["ok", "\u0000"]}`, nil, "body.tags.1", "must not contain a NUL character"},
		{"a NUL in a property name", notes, `{"text": "a", "meta": {"or\u0000": "x"}}`, nil, `body.meta.or\x00`, "the property name must not contain a NUL character"},
		{"invalid UTF-8 in a JSON string", notes, "{\"text\": \"a\xffb\"}", nil, "body.text", "must be valid UTF-8"},
		{"a %00 in a query parameter", notes + "?since=2024-01-01T00:00:00Z%00", `{"text": "a"}`, nil, "query.since", "must not contain a NUL character"},
		{"invalid UTF-8 in a query parameter", notes + "?since=%ff", `{"text": "a"}`, nil, "query.since", "must be valid UTF-8"},
		{"a %00 in a path parameter", "/v1/things/%00/notes", `{"text": "a"}`, nil, "path.id", "must not contain a NUL character"},
		{"invalid UTF-8 in a path parameter", "/v1/things/%C3%28/notes", `{"text": "a"}`, nil, "path.id", "must be valid UTF-8"},
		{"invalid UTF-8 in a declared header", notes, `{"text": "a"}`, []string{"X-Note-Source", "a\xffb"}, "header.X-Note-Source", "must be valid UTF-8"},
		{"a second document after the first", notes, `{"text": "a"} {}`, nil, "body", "unexpected data after the JSON document"},
		{"text after the document", notes, `{"text": "a"}x`, nil, "body", "unexpected data after the JSON document"},
		{"an unknown property", notes, `{"text": "a", "unknown_property_x": "typo"}`, nil, "body.unknown_property_x", "is not a known property"},
		{"a path id that is no UUID", "/v1/things/12/notes", `{"text": "a"}`, nil, "path.id", "must be a UUID"},
		{"a query date-time that is none", notes + "?since=yesterday", `{"text": "a"}`, nil, "query.since", "must be an RFC 3339 date-time"},
		{"a body date-time that is none", notes, `{"text": "a", "at": "2024-13-01"}`, nil, "body.at", "must be an RFC 3339 date-time"},
		{"a date that is none", notes, `{"text": "a", "due": "1/2/2024"}`, nil, "body.due", "must be a date (YYYY-MM-DD)"},
		{"an email address that is none", notes, `{"text": "a", "author_email": "nobody"}`, nil, "body.author_email", "must be an email address"},
		{"a relative URI", notes, `{"text": "a", "link": "/relative"}`, nil, "body.link", "must be an absolute URI"},
		{"a short pattern is quoted", notes, `{"text": "a", "code": "x"}`, nil, "body.code", "must match ^[A-Z]{3}-[0-9]{4}$"},
		{"a long pattern is described", notes, `{"text": "a", "sku": "x"}`, nil, "body.sku", "must match A stock keeping unit such as AB-12-RED-M"},
		{"an over-long string", notes, `{"text": "a", "meta": {"origin": "` + long + `"}}`, nil, "body.meta.origin", "must be at most 10 characters"},
		{"a value outside the enum", notes, `{"text": "a", "mood": "angry"}`, nil, "body.mood", "must be one of calm, busy, late"},
		{"a missing property", notes, `{}`, nil, "body.text", "is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, "POST", f.url+tt.path, tok, "application/json", tt.body, tt.header...)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			for _, e := range r.problem.Errors {
				if e.Field == tt.field && e.Message == tt.message {
					return
				}
			}
			t.Fatalf("errors %+v lack {%q, %q}", r.problem.Errors, tt.field, tt.message)
		})
	}
	t.Run("a valid note passes every guard", func(t *testing.T) {
		body := `{"text": "ünïcödé 🎬", "author_email": "a@b.example", "link": "https://x.example/a", "due": "2024-02-29",
			"at": "2024-02-29T10:00:00Z", "code": "ABC-1234", "sku": "AB-12-RED-M", "mood": "calm", "tags": ["a"], "meta": {"origin": "web"}}`
		if r := do(t, "POST", f.url+notes+"?since=2024-01-01T00:00:00Z", tok, "application/json", body, "X-Note-Source", "cli"); r.status != 201 {
			t.Fatalf("status %d, want 201: %s", r.status, r.body)
		}
	})
}

func TestAProblemListsAtMostTwentyErrorsAndCountsTheRest(t *testing.T) {
	f := newServer(t, nil)
	tags := make([]string, 50)
	for i := range tags {
		tags[i] = strings.Repeat("t", 33)
	}
	body, _ := json.Marshal(map[string]any{"text": "a", "tags": tags})
	r := do(t, "POST", f.url+"/v1/things/"+uuid.NewString()+"/notes", f.jwt(t), "application/json", string(body))
	if r.status != 400 {
		t.Fatalf("status %d, want 400: %s", r.status, r.body)
	}
	if len(r.problem.Errors) != 20 {
		t.Fatalf("%d errors listed, want 20", len(r.problem.Errors))
	}
	if want := "50 problems were found; errors lists the first 20, 30 more are not listed"; r.problem.Detail != want {
		t.Fatalf("detail %q, want %q", r.problem.Detail, want)
	}
	for i, e := range r.problem.Errors {
		if want := fmt.Sprintf("body.tags.%d", i); e.Field != want || e.Message != "must be at most 32 characters" {
			t.Fatalf("errors[%d] = %+v, want %s: must be at most 32 characters", i, e, want)
		}
	}
}

func TestABodyAsLargeAsTheSchemaAllowsIsAccepted(t *testing.T) {
	f := newServer(t, nil) // default limit 1 MiB
	// 262,144 four-byte characters: 1 MiB of text alone.
	text := strings.Repeat("🎬", 262144)
	body, _ := json.Marshal(map[string]string{"text": text})
	if len(body) <= 1<<20 {
		t.Fatalf("the body is %d bytes, want more than the default limit", len(body))
	}
	r := do(t, "POST", f.url+"/v1/things/"+uuid.NewString()+"/notes", f.jwt(t), "application/json", string(body))
	if r.status != 201 {
		t.Fatalf("status %d, want 201: %.300s", r.status, r.body)
	}
	body, _ = json.Marshal(map[string]string{"text": text + "🎬"})
	if r := do(t, "POST", f.url+"/v1/things/"+uuid.NewString()+"/notes", f.jwt(t), "application/json", string(body)); r.status != 400 ||
		len(r.problem.Errors) != 1 || r.problem.Errors[0].Field != "body.text" {
		t.Fatalf("one character more: status %d, want 400 naming body.text: %.300s", r.status, r.body)
	}
}

func TestCheckTextNamesAMultipartFieldWithNULOrInvalidUTF8(t *testing.T) {
	for _, tt := range []struct{ value, message string }{{"a\x00b", "must not contain a NUL character"}, {"a\xffb", "must be valid UTF-8"}} {
		e, ok := errs.As(httpx.CheckText("body.family", tt.value))
		if !ok || e.Kind != errs.Invalid || len(e.Fields) != 1 || e.Fields[0] != errs.Field("body.family", tt.message) {
			t.Fatalf("CheckText(%q) = %v, want 400 naming body.family: %s", tt.value, e, tt.message)
		}
	}
	if err := httpx.CheckText("body.family", "Noto Sans 🎬"); err != nil {
		t.Fatalf("valid text refused: %v", err)
	}
}

func TestCheckJSONTextNamesTheStringInsideAJSONField(t *testing.T) {
	e, ok := errs.As(httpx.CheckJSONText("body.color_keys", []byte(`[{"element_key": "a\u0000"}]`)))
	if !ok || len(e.Fields) != 1 || e.Fields[0] != errs.Field("body.color_keys.0.element_key", "must not contain a NUL character") {
		t.Fatalf("got %v, want body.color_keys.0.element_key named", e)
	}
	if e, ok := errs.As(httpx.CheckJSONText("body.color_keys", []byte("[\"a\x00\"]"))); !ok || e.Fields[0].Field != "body.color_keys" {
		t.Fatalf("a raw NUL: got %v, want body.color_keys named", e)
	}
	if err := httpx.CheckJSONText("body.color_keys", []byte(`[{"element_key": "ä"}]`)); err != nil {
		t.Fatalf("valid JSON refused: %v", err)
	}
}
