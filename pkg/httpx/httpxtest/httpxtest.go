// Package httpxtest helps component tests: it serves an echo server on loopback and gives a
// client that validates every response against the spec.
package httpxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/httpx"
)

// Start serves e on 127.0.0.1 on a free port until the test ends and returns its base URL
// ("http://127.0.0.1:port").
func Start(t testing.TB, e *echo.Echo) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(e)
	// The bounds httpx.New gave the server (Serve applies them in production).
	srv.Config.ReadHeaderTimeout = e.Server.ReadHeaderTimeout
	srv.Config.WriteTimeout = e.Server.WriteTimeout
	srv.Config.IdleTimeout = e.Server.IdleTimeout
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// builtin are the routes httpx adds outside the spec; their responses are not checked.
var builtin = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/openapi.yaml": true, "/docs": true,
	httpx.RedocAsset: true}

// ValidatingDoer returns a client (it satisfies the generated clients' HttpRequestDoer) whose
// every response is checked against spec: the status must be declared for the operation, the
// content type declared for that status, the body must match its schema, and a JSON object may
// carry no property its schema does not declare (unless additionalProperties allows it). A
// required property must be present (null only where nullable), and so must every property
// declared nullable: a response says "unset" with null, never by leaving a field out.
// Mismatches are reported with t.Errorf; the response is returned unchanged. Requests to paths
// that are not operations of the spec are reported too. base nil means http.DefaultTransport.
func ValidatingDoer(t testing.TB, spec *openapi3.T, base http.RoundTripper) *http.Client {
	t.Helper()
	router, err := httpx.NewRouter(spec)
	if err != nil {
		t.Fatalf("httpxtest: route the spec: %v", err)
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &http.Client{Transport: &validatingTransport{t: t, router: router, base: base}}
}

type validatingTransport struct {
	t      testing.TB
	router routers.Router
	base   http.RoundTripper
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := v.base.RoundTrip(req)
	if err != nil || builtin[req.URL.Path] {
		return resp, err
	}
	if problem := v.check(req, resp); problem != "" {
		v.t.Errorf("response to %s %s does not match the spec: %s", req.Method, req.URL.Path, problem)
	}
	return resp, nil
}

// check validates resp and leaves its body readable again.
func (v *validatingTransport) check(req *http.Request, resp *http.Response) string {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return "the request is not an operation of the spec: " + err.Error()
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
			SchemaValidationOptions: httpx.SchemaValidationOptions()},
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		// A stream never ends by itself: check status and media type, leave the body alone.
		in.Options.ExcludeResponseBody = true
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			return err.Error()
		}
		return declaredContent(route, resp)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "reading the body: " + err.Error()
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err.Error()
	}
	if mt == "application/json" || strings.HasSuffix(mt, "+json") {
		schema := responseSchema(route, resp)
		var value any
		if schema != nil && json.Unmarshal(body, &value) == nil {
			var extra, absent []string
			undeclared(schema, value, "", &extra)
			if len(extra) > 0 {
				return "undeclared properties: " + strings.Join(extra, ", ")
			}
			missingNullable(schema, value, "", &absent)
			if len(absent) > 0 {
				slices.Sort(absent)
				return "nullable properties left out (send null when unset): " + strings.Join(absent, ", ")
			}
		}
	}
	return ""
}

func responseRef(route *routers.Route, status int) *openapi3.Response {
	rs := route.Operation.Responses
	if rs == nil {
		return nil
	}
	r := rs.Status(status)
	if r == nil {
		r = rs.Default()
	}
	if r == nil {
		return nil
	}
	return r.Value
}

// declaredContent checks that a body-less-checked response still has a declared media type.
func declaredContent(route *routers.Route, resp *http.Response) string {
	r := responseRef(route, resp.StatusCode)
	if r == nil || len(r.Content) == 0 {
		return ""
	}
	if r.Content.Get(resp.Header.Get("Content-Type")) == nil {
		return fmt.Sprintf("content type %q is not declared for status %d", resp.Header.Get("Content-Type"), resp.StatusCode)
	}
	return ""
}

func responseSchema(route *routers.Route, resp *http.Response) *openapi3.SchemaRef {
	r := responseRef(route, resp.StatusCode)
	if r == nil {
		return nil
	}
	mt := r.Content.Get(resp.Header.Get("Content-Type"))
	if mt == nil {
		return nil
	}
	return mt.Schema
}

// undeclared lists the properties of value that schema does not declare. Composition is read
// leniently: a property declared by any branch of allOf/oneOf/anyOf counts as declared.
func undeclared(ref *openapi3.SchemaRef, value any, path string, out *[]string) {
	if ref == nil || ref.Value == nil {
		return
	}
	props := map[string]*openapi3.SchemaRef{}
	var items, additional *openapi3.SchemaRef
	open := false
	var gather func(s *openapi3.Schema)
	gather = func(s *openapi3.Schema) {
		for name, p := range s.Properties {
			if _, ok := props[name]; !ok {
				props[name] = p
			}
		}
		if s.AdditionalProperties.Schema != nil {
			additional = s.AdditionalProperties.Schema
		}
		if s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has {
			open = true
		}
		if s.Items != nil && items == nil {
			items = s.Items
		}
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, sub := range group {
				if sub != nil && sub.Value != nil {
					gather(sub.Value)
				}
			}
		}
	}
	gather(ref.Value)
	switch v := value.(type) {
	case map[string]any:
		for name, child := range v {
			p, ok := props[name]
			switch {
			case ok:
				undeclared(p, child, path+"/"+name, out)
			case additional != nil:
				undeclared(additional, child, path+"/"+name, out)
			case open || len(props) == 0:
				// free-form object
			default:
				*out = append(*out, path+"/"+name)
			}
		}
	case []any:
		for i, child := range v {
			undeclared(items, child, fmt.Sprintf("%s/%d", path, i), out)
		}
	}
}

// missingNullable lists the properties of value that schema declares nullable but value lacks.
// Properties of allOf branches count; those of oneOf/anyOf do not (the branch that applies is
// not known here).
func missingNullable(ref *openapi3.SchemaRef, value any, path string, out *[]string) {
	if ref == nil || ref.Value == nil {
		return
	}
	props := map[string]*openapi3.SchemaRef{}
	var items, additional *openapi3.SchemaRef
	var gather func(s *openapi3.Schema)
	gather = func(s *openapi3.Schema) {
		for name, p := range s.Properties {
			if _, ok := props[name]; !ok {
				props[name] = p
			}
		}
		if s.AdditionalProperties.Schema != nil {
			additional = s.AdditionalProperties.Schema
		}
		if s.Items != nil && items == nil {
			items = s.Items
		}
		for _, sub := range s.AllOf {
			if sub != nil && sub.Value != nil {
				gather(sub.Value)
			}
		}
	}
	gather(ref.Value)
	switch v := value.(type) {
	case map[string]any:
		for name, p := range props {
			child, present := v[name]
			if !present {
				if p.Value != nil && p.Value.Nullable && !p.Value.WriteOnly {
					*out = append(*out, path+"/"+name)
				}
				continue
			}
			missingNullable(p, child, path+"/"+name, out)
		}
		if additional != nil {
			for name, child := range v {
				if _, declared := props[name]; !declared {
					missingNullable(additional, child, path+"/"+name, out)
				}
			}
		}
	case []any:
		for i, child := range v {
			missingNullable(items, child, fmt.Sprintf("%s/%d", path, i), out)
		}
	}
}
