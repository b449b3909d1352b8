package httpxtest_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
)

// recordingTB captures Errorf so a test can assert that a mismatch was reported.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestValidatingDoerReportsResponsesTheSpecDoesNotDeclare(t *testing.T) {
	doc, err := os.ReadFile("../testdata/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		t.Fatal(err)
	}
	issuer := authtest.New(t)
	token := issuer.ServiceToken(t, "tests")
	e, err := httpx.New(httpx.Options{Service: "things", SpecDocument: doc, Spec: spec, Auth: issuer.Authenticator(t), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	replies := map[string]func(c echo.Context) error{
		"declared": func(c echo.Context) error {
			return c.JSON(200, map[string]any{"id": c.Param("id"), "slug": "s", "size": 2})
		},
		"undeclared-field": func(c echo.Context) error {
			return c.JSON(200, map[string]any{"id": c.Param("id"), "slug": "s", "owner_email": "x@y.z"})
		},
		"undeclared-status": func(c echo.Context) error {
			return c.JSON(http.StatusTeapot, map[string]any{"id": c.Param("id"), "slug": "s"})
		},
		"wrong-type": func(c echo.Context) error {
			return c.JSON(200, map[string]any{"id": c.Param("id"), "slug": 5})
		},
		"bad-uuid": func(c echo.Context) error {
			return c.JSON(200, map[string]any{"id": "thing-1", "slug": "s"})
		},
		"wrong-media-type": func(c echo.Context) error {
			return c.String(200, "id,slug")
		},
	}
	ids := map[string]string{}
	for name := range replies {
		ids[uuid.NewString()] = name
	}
	e.GET("/v1/things/:id", func(c echo.Context) error { return replies[ids[c.Param("id")]](c) })
	e.GET("/v1/things", func(c echo.Context) error {
		return c.JSON(200, map[string]any{"data": []any{map[string]any{"id": uuid.NewString(), "slug": "a", "nested_extra": true}}})
	})
	base := httpxtest.Start(t, e)

	idOf := func(name string) string {
		for id, n := range ids {
			if n == name {
				return id
			}
		}
		t.Fatalf("no id for %s", name)
		return ""
	}
	tests := []struct {
		name, path string
		report     string // "" = no report expected
	}{
		{"a declared response passes", "/v1/things/" + idOf("declared"), ""},
		{"an undeclared property is reported", "/v1/things/" + idOf("undeclared-field"), "undeclared properties: /owner_email"},
		{"an undeclared property inside an array item is reported", "/v1/things", "undeclared properties: /data/0/nested_extra"},
		{"an undeclared status is reported", "/v1/things/" + idOf("undeclared-status"), "status is not supported"},
		{"a wrongly typed property is reported", "/v1/things/" + idOf("wrong-type"), "value must be a string"},
		{"a malformed uuid is reported", "/v1/things/" + idOf("bad-uuid"), `doesn't match the format "uuid"`},
		{"an undeclared media type is reported", "/v1/things/" + idOf("wrong-media-type"), "Content-Type"},
		{"a 401 problem declared by the spec passes", "/v1/things?anonymous", ""},
		{"a path outside the spec is reported", "/v1/nowhere", "not an operation of the spec"},
		{"the built-in routes are not checked", "/healthz", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			client := httpxtest.ValidatingDoer(rec, spec, nil)
			req, _ := http.NewRequest("GET", base+tt.path, nil)
			if !strings.HasSuffix(tt.path, "?anonymous") {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if len(body) == 0 {
				t.Fatal("the body was not handed back to the caller")
			}
			got := strings.Join(rec.errors, "\n")
			if tt.report == "" && got != "" {
				t.Fatalf("unexpected report: %s", got)
			}
			if tt.report != "" && !strings.Contains(got, tt.report) {
				t.Fatalf("report %q does not contain %q", got, tt.report)
			}
		})
	}
}

// presenceSpec has a response schema with a required nullable property, an optional nullable
// one (in an allOf branch and in array items) and an optional plain one.
const presenceSpec = `openapi: 3.0.3
info: {title: presence, version: 1.0.0}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The item.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
components:
  schemas:
    Item:
      allOf:
        - type: object
          required: [id, owner]
          properties:
            id: {type: string}
            owner: {type: string, nullable: true}
            note: {type: string}
        - type: object
          properties:
            parent: {type: string, nullable: true}
            children:
              type: array
              items:
                type: object
                properties:
                  size: {type: integer, nullable: true}
`

func TestValidatingDoerReportsLeftOutRequiredAndNullableProperties(t *testing.T) {
	spec, err := openapi3.NewLoader().LoadFromData([]byte(presenceSpec))
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{
		"complete":         `{"id": "a", "owner": null, "parent": null, "children": [{"size": null}]}`,
		"no-optional":      `{"id": "a", "owner": "o", "parent": "p"}`,
		"no-required":      `{"id": "a", "parent": null}`,
		"no-nullable":      `{"id": "a", "owner": null}`,
		"no-nullable-item": `{"id": "a", "owner": null, "parent": null, "children": [{"size": 1}, {}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, bodies[strings.TrimPrefix(r.URL.Path, "/items/")])
	}))
	t.Cleanup(srv.Close)
	spec.Servers = openapi3.Servers{{URL: srv.URL}}
	for name, report := range map[string]string{
		"complete":         "",
		"no-optional":      "",
		"no-required":      `property "owner" is missing`,
		"no-nullable":      "nullable properties left out (send null when unset): /parent",
		"no-nullable-item": "nullable properties left out (send null when unset): /children/1/size",
	} {
		t.Run("a body with "+name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			resp, err := httpxtest.ValidatingDoer(rec, spec, nil).Get(srv.URL + "/items/" + name)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := strings.Join(rec.errors, "\n")
			if report == "" && got != "" {
				t.Fatalf("unexpected report: %s", got)
			}
			if report != "" && !strings.Contains(got, report) {
				t.Fatalf("report %q does not contain %q", got, report)
			}
		})
	}
}
