package httpx

import (
	"errors"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
)

// The operation found from echo's route is the one the spec's router finds, with the same path
// parameters: every operation of the three specs, registered on echo by their generated code, is
// requested with each path parameter in turn set to ordinary values and to every literal segment
// of the spec (where a parameter and a fixed path compete), and with a value that needs escaping
// (left to the spec's router).
func TestEchosRouteFindsTheOperationTheSpecRouterFinds(t *testing.T) {
	register := map[string]func(e *echo.Echo, base string){
		"content.yaml":      func(e *echo.Echo, base string) { contentserver.RegisterHandlersWithBaseURL(e, nil, base) },
		"orgboard.yaml":     func(e *echo.Echo, base string) { orgboardserver.RegisterHandlersWithBaseURL(e, nil, base) },
		"renderevents.yaml": func(e *echo.Echo, base string) { rendereventsserver.RegisterHandlersWithBaseURL(e, nil, base) },
	}
	for file, reg := range register {
		doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join("../../specs/openapi", file))
		if err != nil {
			t.Fatal(err)
		}
		spec := routable(doc)
		router, err := gorillamux.NewRouter(spec)
		if err != nil {
			t.Fatal(err)
		}
		routes := newEchoRoutes(spec)
		base := strings.TrimSuffix(spec.Servers[0].URL, "/")
		e := echo.New()
		reg(e, base)

		values := map[string]bool{"01a20f5d-4f66-760e-a010-5bb0453d4eff": true, "abc": true, "1": true}
		for path := range spec.Paths.Map() {
			for _, seg := range strings.Split(path, "/") {
				if seg != "" && !strings.Contains(seg, "{") {
					values[seg] = true
				}
			}
		}
		find := func(method, target string) (echo.Context, bool) {
			req := httptest.NewRequest(method, target, nil)
			c := e.NewContext(req, httptest.NewRecorder())
			e.Router().Find(method, echo.GetPath(req), c)
			return c, routed(c) && !overMatched(c)
		}
		operations, fast, shadowed := 0, 0, 0
		for path, item := range spec.Paths.Map() {
			// fill writes the path with its at-th parameter set to v and the others to an id.
			segs := strings.Split(path, "/")
			var params []int // indexes of the parameter segments
			for i, seg := range segs {
				if strings.HasPrefix(seg, "{") {
					params = append(params, i)
				}
			}
			fill := func(at int, v string) string {
				out := slices.Clone(segs)
				for n, i := range params {
					out[i] = "01a20f5d-4f66-760e-a010-5bb0453d4eff"
					if n == at {
						out[i] = v
					}
				}
				return base + strings.Join(out, "/")
			}
			for method := range item.Operations() {
				operations++
				targets := []string{fill(-1, "")}
				for at := range params {
					for v := range values {
						targets = append(targets, fill(at, v))
					}
				}
				for n, target := range targets {
					c, ok := find(method, target)
					if !ok {
						continue
					}
					got, gotParams, found := routes.find(c)
					if !found {
						t.Errorf("%s %s (echo route %s): not found from echo's route", method, target, c.Path())
						continue
					}
					if n == 0 {
						fast++
					}
					want, wantParams, err := router.FindRoute(c.Request())
					if errors.Is(err, routers.ErrMethodNotAllowed) {
						// A fixed path of the spec takes the request from the parameter echo gave it
						// to (GET /svg-previews/generate, where only POST is declared): the spec's
						// router finds no operation, and the operation that serves it is echo's.
						if got.Method != method || base+echoRoute(got.Path) != c.Path() {
							t.Errorf("%s %s: echo's route %s gives %s %s", method, target, c.Path(), got.Method, got.Path)
						}
						shadowed++
						continue
					}
					if err != nil {
						t.Errorf("%s %s: the spec's router finds no operation (%v); echo's route gives %s %s", method, target, err, got.Method, got.Path)
						continue
					}
					if got.Operation != want.Operation || got.Path != want.Path || got.Method != want.Method ||
						got.PathItem != want.PathItem || got.Server != want.Server || got.Spec != want.Spec {
						t.Errorf("%s %s: echo's route gives %s %s, the spec's router %s %s", method, target, got.Method, got.Path, want.Method, want.Path)
					}
					if !maps.Equal(gotParams, wantParams) {
						t.Errorf("%s %s: path parameters %v, the spec's router %v", method, target, gotParams, wantParams)
					}
				}
				for at := range params {
					if c, ok := find(method, fill(at, "a%20b")); ok {
						if _, _, found := routes.find(c); found {
							t.Errorf("%s %s: a path that needs escaping is answered from echo's route", method, fill(at, "a%20b"))
						}
					}
				}
			}
		}
		if operations == 0 || fast != operations {
			t.Errorf("%s: %d of %d operations found from echo's route", file, fast, operations)
		}
		t.Logf("%s: %d operations; %d requests routed by echo to a parameter where the spec has a fixed path", file, operations, shadowed)
	}
}
