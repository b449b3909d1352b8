package httpx

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth/authtest"
)

// TestOrgboardsFinalTextGetsTheBodyLimitItsSchemaAllows derives the limits from orgboard's
// spec: approveAgentRun's final_text allows 262,144 characters, which as 4-byte UTF-8 is more
// than the default limit; such a body reaches the handler.
func TestOrgboardsFinalTextGetsTheBodyLimitItsSchemaAllows(t *testing.T) {
	doc, err := os.ReadFile("../../specs/openapi/orgboard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	issuer := authtest.New(t)
	e, err := New(Options{Service: "orgboard", SpecDocument: doc, Auth: issuer.Authenticator(t)})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"final_text": strings.Repeat("😀", 262144)})
	if int64(len(body)) <= DefaultBodyLimit {
		t.Fatalf("the body is %d bytes, want more than the default limit", len(body))
	}
	var got int
	e.POST("/api/orgboard/agent-runs/:id/approve", func(c echo.Context) error {
		var in struct {
			FinalText string `json:"final_text"`
		}
		if err := json.NewDecoder(c.Request().Body).Decode(&in); err != nil {
			return err
		}
		got = len([]rune(in.FinalText))
		return c.NoContent(http.StatusNoContent)
	})
	token := issuer.Token(t, authtest.Subject(uuid.New()))
	rec := serve(e, "/api/orgboard/agent-runs/"+uuid.NewString()+"/approve", token, string(body))
	if rec.Code != http.StatusNoContent || got != 262144 {
		t.Fatalf("status %d, %d characters reached the handler: %.300s", rec.Code, got, rec.Body)
	}

	// The limit is what the schema allows, not more: one more character's worth is refused.
	limit := derivedLimit(approveOperation(t, doc), DefaultBodyLimit, 16<<20)
	if want := int64(262144*bytesPerChar + 3 + len("final_text")*bytesPerChar + 4 + 2); limit != want {
		t.Fatalf("derived limit %d, want %d", limit, want)
	}
	rec = serve(e, "/api/orgboard/agent-runs/"+uuid.NewString()+"/approve", token,
		`{"final_text": "`+strings.Repeat("a", int(limit))+`"}`)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body above the derived limit: status %d, want 413", rec.Code)
	}
	// A ceiling below what the schema allows wins.
	if l := derivedLimit(approveOperation(t, doc), DefaultBodyLimit, 1<<20+10); l != 1<<20+10 {
		t.Fatalf("capped limit %d, want the ceiling", l)
	}
}

func approveOperation(t *testing.T, doc []byte) *openapi3.Operation {
	t.Helper()
	spec, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		t.Fatal(err)
	}
	item := spec.Paths.Find("/api/orgboard/agent-runs/{id}/approve")
	if item == nil || item.Post == nil {
		t.Fatal("orgboard's spec has no POST /api/orgboard/agent-runs/{id}/approve")
	}
	return item.Post
}

func serve(e *echo.Echo, path, token, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}
