package httpx

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// The parameters carried leaves out change no verdict of the validator: every operation of the
// three specs (and of the test spec) is validated with all its parameters and with the carried
// ones, on a request without any, and on requests carrying one declared query parameter or
// header each, empty, with a value of the wrong shape and with an ordinary one.
func TestLeavingOutAbsentParametersChangesNoVerdict(t *testing.T) {
	files, _ := filepath.Glob("../../specs/openapi/*.yaml")
	files = append(files, "testdata/spec.yaml")
	if len(files) < 4 {
		t.Fatalf("specs: %v", files)
	}
	ctx := context.Background()
	opts := &openapi3filter.Options{
		MultiError: true, ExcludeRequestBody: true,
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: SchemaValidationOptions(),
	}
	request := func(query url.Values, header [2]string) *http.Request {
		req := httptest.NewRequest("GET", "/?"+query.Encode(), nil)
		if header[0] != "" {
			req.Header.Set(header[0], header[1])
		}
		return req
	}
	// verdict validates a request carrying query and header against op, with the parameters
	// carried leaves or with all of them, and says the error and the query defaults left.
	verdict := func(route routers.Route, op openapi3.Operation, path map[string]string, query url.Values, header [2]string, leaveOut bool) string {
		req := request(query, header)
		op.Security = &openapi3.SecurityRequirements{}
		if leaveOut {
			op.Parameters = carried(op.Parameters, route.PathItem, req, query)
		}
		route.Operation = &op
		err := openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{
			Request: req, PathParams: path, Route: &route, Options: opts})
		if err == nil {
			return "ok " + req.URL.RawQuery
		}
		return err.Error() + " " + req.URL.RawQuery
	}
	checked, leftOut := 0, 0
	for _, file := range files {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				route := routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
				pathParams := map[string]string{}
				var cases []func() (url.Values, [2]string)
				cases = append(cases, func() (url.Values, [2]string) { return url.Values{}, [2]string{} })
				for _, ref := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
					p := ref.Value
					switch p.In {
					case openapi3.ParameterInPath:
						pathParams[p.Name] = "x"
					case openapi3.ParameterInQuery, openapi3.ParameterInHeader:
						for _, v := range []string{"", "x", "1", "true", "0196f2a4-5b7c-7d8e-9f01-23456789abcd"} {
							cases = append(cases, func() (url.Values, [2]string) {
								if p.In == openapi3.ParameterInHeader {
									return url.Values{}, [2]string{p.Name, v}
								}
								return url.Values{p.Name: {v}}, [2]string{}
							})
						}
					}
				}
				for _, c := range cases {
					q, h := c()
					got := verdict(route, *op, pathParams, q, h, true)
					if want := verdict(route, *op, pathParams, q, h, false); got != want {
						t.Errorf("%s %s %s?%s %v:\n carried: %s\n all:     %s", file, method, path, q.Encode(), h, got, want)
					}
					if len(carried(op.Parameters, item, request(q, h), q)) < len(op.Parameters) {
						leftOut++
					}
					checked++
				}
			}
		}
	}
	if leftOut == 0 || checked < 500 {
		t.Fatalf("%d requests checked, %d with parameters left out", checked, leftOut)
	}
	t.Logf("%d requests checked, %d with parameters left out", checked, leftOut)
}
