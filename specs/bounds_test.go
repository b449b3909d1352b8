package specs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

// Every value a client or a producer can send is bounded by its contract, so that no input can
// reach a database limit (an index entry larger than a B-tree page, an unbounded text column) and
// no typo in a property name is silently ignored:
//   - every string of a request body, query, path or header parameter has a maxLength, an enum or a
//     format that bounds it (uuid, date-time, date; binary for uploaded files, bounded by the
//     operation's size limit);
//   - every array has a maxItems;
//   - every object of a request body refuses unknown properties (additionalProperties: false),
//     except a free-form JSON value that declares no properties and says so (additionalProperties:
//     true), bounded by the operation's body size limit;
//   - the same string and array bounds hold for every field of the AsyncAPI event schemas.

// boundedFormats bound a string by its syntax.
var boundedFormats = map[string]bool{"uuid": true, "date-time": true, "date": true, "binary": true}

func TestEveryRequestStringArrayAndObjectOfTheOpenAPISpecsIsBounded(t *testing.T) {
	for _, service := range []string{"content", "orgboard", "renderevents"} {
		t.Run(service, func(t *testing.T) {
			b, err := OpenAPI(service)
			if err != nil {
				t.Fatal(err)
			}
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.Validate(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.ToLower(oneLine(doc.Info.Description)), "unknown properties are refused with 400 naming them") {
				t.Errorf("%s.yaml: info.description does not state that unknown properties are refused with 400 naming them", service)
			}
			for _, problem := range openAPIBoundProblems(doc) {
				t.Errorf("%s.yaml: %s", service, problem)
			}
		})
	}
}

// openAPIBoundProblems lists every unbounded request value of doc, one line each naming the
// operation or schema and the property.
func openAPIBoundProblems(doc *openapi3.T) []string {
	w := boundWalker{seen: map[*openapi3.Schema]bool{}}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		for _, method := range []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			where := method + " " + path
			for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range params {
					if p.Value == nil || p.Value.Schema == nil {
						continue
					}
					w.schema(fmt.Sprintf("%s: %s parameter %s", where, p.Value.In, p.Value.Name), p.Value.Schema, false)
				}
			}
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			media := make([]string, 0, len(op.RequestBody.Value.Content))
			for m := range op.RequestBody.Value.Content {
				media = append(media, m)
			}
			sort.Strings(media)
			for _, m := range media {
				s := op.RequestBody.Value.Content[m].Schema
				name := where + ": request body (" + m + ")"
				if s != nil && s.Ref != "" {
					name = "schema " + refName(s.Ref)
				}
				w.schema(name, s, true)
			}
		}
	}
	return w.problems
}

type boundWalker struct {
	seen     map[*openapi3.Schema]bool
	problems []string
}

func (w *boundWalker) add(format string, a ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, a...))
}

// schema checks s, named where; objects must be closed when closed is true (request bodies).
func (w *boundWalker) schema(where string, ref *openapi3.SchemaRef, closed bool) {
	if ref == nil || ref.Value == nil {
		return
	}
	s := ref.Value
	if w.seen[s] {
		return
	}
	w.seen[s] = true
	for _, sub := range append(append(append(openapi3.SchemaRefs{}, s.AllOf...), s.OneOf...), s.AnyOf...) {
		name := where
		if sub.Ref != "" {
			name = "schema " + refName(sub.Ref)
		}
		w.schema(name, sub, closed)
	}
	switch {
	case s.Type.Is("string"):
		if s.MaxLength == nil && len(s.Enum) == 0 && !boundedFormats[s.Format] {
			w.add("%s: a string without maxLength (or enum, or format uuid/date-time)", where)
		}
	case s.Type.Is("array"):
		if s.MaxItems == nil {
			w.add("%s: an array without maxItems", where)
		}
		w.schema(where+"[]", s.Items, closed)
	case s.Type.Is("object") || len(s.Properties) > 0:
		has := s.AdditionalProperties.Has
		freeForm := len(s.Properties) == 0 && has != nil && *has // a JSON value of the client's own shape, said explicitly
		if closed && len(s.AllOf) == 0 && !freeForm && (has == nil || *has) && s.AdditionalProperties.Schema == nil {
			w.add("%s: an object without additionalProperties: false (or, for a free-form value without properties, an explicit additionalProperties: true)", where)
		}
		if vs := s.AdditionalProperties.Schema; vs != nil {
			if s.MaxProps == nil {
				w.add("%s: a map without maxProperties", where)
			}
			w.schema(where+"{}", vs, closed)
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := s.Properties[n]
			if p.Value != nil && p.Value.ReadOnly {
				continue // never sent: a request carrying it is refused
			}
			name := where + ": property " + n
			if p.Ref != "" && (p.Value.Type.Is("object") || len(p.Value.Properties) > 0) {
				name = "schema " + refName(p.Ref)
			}
			w.schema(name, p, closed)
		}
	}
}

func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestEveryStringAndArrayOfTheEventSchemasIsBounded(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "specs", "asyncapi", "events.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(doc.Components.Schemas))
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, problem := range eventBoundProblems("schema "+n, doc.Components.Schemas[n]) {
			t.Errorf("events.yaml: %s", problem)
		}
	}
}

func eventBoundProblems(where string, s map[string]any) []string {
	if _, ok := s["$ref"]; ok {
		return nil // the referenced schema is checked by its own name
	}
	var out []string
	types := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, v := range t {
			if str, ok := v.(string); ok {
				types[str] = true
			}
		}
	}
	format, _ := s["format"].(string)
	_, hasEnum := s["enum"]
	_, hasMax := s["maxLength"]
	if types["string"] && !hasEnum && !hasMax && !boundedFormats[format] {
		out = append(out, where+": a string without maxLength (or enum, or format uuid/date-time)")
	}
	if types["array"] {
		if _, ok := s["maxItems"]; !ok {
			out = append(out, where+": an array without maxItems")
		}
		if items, ok := s["items"].(map[string]any); ok {
			out = append(out, eventBoundProblems(where+"[]", items)...)
		}
	}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if p, ok := props[n].(map[string]any); ok {
			out = append(out, eventBoundProblems(where+": property "+n, p)...)
		}
	}
	return out
}
