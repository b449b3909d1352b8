package httpx

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// A request for a path the service does not serve is often a near miss: the right path with a
// prefix too many or too few (/api/orgboard/products/{id}/identity for /products/{id}/identity,
// /templates for /v1/templates). The 404 then names the path the spec has.

// pathTemplate is one path of the spec with its server's base path, split into segments.
type pathTemplate struct {
	segments []string // "{id}" for a parameter
	methods  []string
}

// pathHints finds, for a path that is not served, the spec path it most likely meant.
type pathHints struct {
	templates []pathTemplate
}

func newPathHints(spec *openapi3.T) *pathHints {
	bases := []string{""}
	if len(spec.Servers) > 0 {
		bases = nil
		for _, s := range spec.Servers {
			if b := strings.TrimSuffix(serverPath(s.URL), "/"); !slices.Contains(bases, b) {
				bases = append(bases, b)
			}
		}
	}
	h := &pathHints{}
	if spec.Paths == nil {
		return h
	}
	for _, path := range spec.Paths.InMatchingOrder() {
		var methods []string
		for m := range spec.Paths.Value(path).Operations() {
			methods = append(methods, m)
		}
		for _, base := range bases {
			h.templates = append(h.templates, pathTemplate{segments: segments(base + path), methods: methods})
		}
	}
	return h
}

func segments(path string) []string {
	return strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
}

func isParam(segment string) bool {
	return strings.HasPrefix(segment, "{") && strings.HasSuffix(segment, "}")
}

// suggest returns the concrete path of the spec that ends like the request (the most segments
// alike, then one with an operation for method); "" when none. The common tail must hold a
// literal segment: a bare id matches anything.
func (h *pathHints) suggest(method, path string) string {
	req := segments(path)
	best, bestScore := "", 0
	for _, t := range h.templates {
		candidate, shared := t.nearMiss(req)
		if candidate == "" {
			continue
		}
		score := 2 * shared
		if slices.Contains(t.methods, method) {
			score++
		}
		if score > bestScore {
			best, bestScore = candidate, score
		}
	}
	return best
}

// nearMiss compares the template with a request path from the end: when they share a tail with
// a literal segment, it returns the template's path with the request's values in that tail, and
// the number of segments shared.
func (t pathTemplate) nearMiss(req []string) (string, int) {
	shared, literal := 0, false
	for shared < min(len(t.segments), len(req)) {
		ts, rs := t.segments[len(t.segments)-1-shared], req[len(req)-1-shared]
		if !isParam(ts) {
			if ts != rs {
				break
			}
			literal = true
		}
		shared++
	}
	if !literal {
		return "", 0
	}
	// The rest of the template is written out as it is, so it cannot hold a parameter.
	prefix := t.segments[:len(t.segments)-shared]
	if slices.ContainsFunc(prefix, isParam) {
		return "", 0
	}
	return "/" + strings.Join(append(slices.Clone(prefix), req[len(req)-shared:]...), "/"), shared
}

// overMatched reports whether echo chose the request's route by letting a trailing path
// parameter swallow slashes (it does when nothing longer matches: /products/:id takes
// "X/identity", and answers 405 for another method). No parameter of a spec holds a slash, so
// such a request names no resource. Routes with a wildcard take any depth by design.
func overMatched(c echo.Context) bool {
	route := c.Path()
	if route == "" || strings.Contains(route, "*") {
		return false
	}
	return len(segments(c.Request().URL.Path)) > len(segments(route))
}

// detail is the problem detail of a request for path that no route serves: it names the
// path meant when there is one.
func (h *pathHints) detail(method, path string) string {
	if s := h.suggest(method, path); s != "" {
		return fmt.Sprintf("nothing is served at %s; did you mean %s?", path, s)
	}
	return ""
}

// routeMiss reports whether err is echo's "no route" (or the contract's refusal of an
// over-matched path), as opposed to a 404 of the application.
func routeMiss(err error) bool {
	return errors.Is(err, echo.ErrNotFound)
}
