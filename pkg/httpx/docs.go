package httpx

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The docs page is rendered once, server-side, from the spec: no scripts and no CDN, so it works
// on a machine without internet access.

type docOperation struct {
	ID, Method, Path, Summary, Description string
	Deprecated                             bool
	Security                               []string // "public" when none
	Params                                 []*openapi3.Parameter
	Body                                   *openapi3.RequestBody
	Responses                              []docResponse
}

type docResponse struct {
	Status string
	*openapi3.Response
}

type docTag struct {
	Name, Description string
	Ops               []docOperation
}

type docSchema struct {
	Name   string
	Schema *openapi3.Schema
}

func renderDocs(spec *openapi3.T) ([]byte, error) {
	tags := map[string]*docTag{}
	var order []string
	tagFor := func(name string) *docTag {
		if t, ok := tags[name]; ok {
			return t
		}
		t := &docTag{Name: name}
		tags[name] = t
		order = append(order, name)
		return t
	}
	for _, t := range spec.Tags {
		tagFor(t.Name).Description = t.Description
	}
	for _, path := range spec.Paths.InMatchingOrder() {
		item := spec.Paths.Value(path)
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			d := docOperation{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary,
				Description: op.Description, Deprecated: op.Deprecated, Security: securityNames(spec, op)}
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				if p.Value != nil {
					d.Params = append(d.Params, p.Value)
				}
			}
			if op.RequestBody != nil {
				d.Body = op.RequestBody.Value
			}
			if op.Responses != nil {
				for status, r := range op.Responses.Map() {
					if r.Value != nil {
						d.Responses = append(d.Responses, docResponse{Status: status, Response: r.Value})
					}
				}
				slices.SortFunc(d.Responses, func(a, b docResponse) int { return strings.Compare(a.Status, b.Status) })
			}
			tag := "other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			t := tagFor(tag)
			t.Ops = append(t.Ops, d)
		}
	}
	var groups []*docTag
	for _, name := range order {
		if len(tags[name].Ops) > 0 {
			groups = append(groups, tags[name])
		}
	}
	var schemas []docSchema
	if spec.Components != nil {
		for name, s := range spec.Components.Schemas {
			if s.Value != nil {
				schemas = append(schemas, docSchema{Name: name, Schema: s.Value})
			}
		}
		slices.SortFunc(schemas, func(a, b docSchema) int { return strings.Compare(a.Name, b.Name) })
	}
	var buf bytes.Buffer
	err := docsPage.Execute(&buf, map[string]any{"Spec": spec, "Info": spec.Info, "Tags": groups, "Schemas": schemas})
	return buf.Bytes(), err
}

func securityNames(spec *openapi3.T, op *openapi3.Operation) []string {
	sec := op.Security
	if sec == nil {
		sec = &spec.Security
	}
	var names []string
	for _, req := range *sec {
		var all []string
		for name, scopes := range req {
			if len(scopes) > 0 {
				name += " (" + strings.Join(scopes, ", ") + ")"
			}
			all = append(all, name)
		}
		slices.Sort(all)
		if len(all) == 0 {
			all = []string{"anonymous"}
		}
		names = append(names, strings.Join(all, " + "))
	}
	if len(names) == 0 {
		return []string{"public"}
	}
	return names
}

// typeOf renders a schema as a short type expression with links to named schemas.
func typeOf(ref *openapi3.SchemaRef) template.HTML {
	if ref == nil {
		return "any"
	}
	if ref.Ref != "" {
		name := ref.Ref[strings.LastIndex(ref.Ref, "/")+1:]
		return template.HTML(`<a href="#schema-` + template.HTMLEscapeString(name) + `">` + template.HTMLEscapeString(name) + `</a>`)
	}
	s := ref.Value
	if s == nil {
		return "any"
	}
	join := func(word string, refs openapi3.SchemaRefs) template.HTML {
		parts := make([]string, 0, len(refs))
		for _, r := range refs {
			parts = append(parts, string(typeOf(r)))
		}
		return template.HTML(word + " " + strings.Join(parts, ", "))
	}
	var out template.HTML
	switch {
	case len(s.OneOf) > 0:
		out = join("one of", s.OneOf)
	case len(s.AnyOf) > 0:
		out = join("any of", s.AnyOf)
	case len(s.AllOf) > 0:
		out = join("all of", s.AllOf)
	case s.Type.Is("array"):
		out = "array of " + typeOf(s.Items)
	case s.Type != nil && len(s.Type.Slice()) > 0:
		out = template.HTML(template.HTMLEscapeString(strings.Join(s.Type.Slice(), " | ")))
	case len(s.Properties) > 0:
		out = "object"
	default:
		out = "any"
	}
	if s.Format != "" {
		out += template.HTML(" (" + template.HTMLEscapeString(s.Format) + ")")
	}
	if len(s.Enum) > 0 {
		vals := make([]string, 0, len(s.Enum))
		for _, v := range s.Enum {
			vals = append(vals, template.HTMLEscapeString(jsonish(v)))
		}
		out += template.HTML(": " + strings.Join(vals, " | "))
	}
	if s.Nullable {
		out += " | null"
	}
	return out
}

func jsonish(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

type propRow struct {
	Name     string
	Schema   *openapi3.SchemaRef
	Required bool
}

// propRows lists the properties of s, including those of inline allOf parts (named parts are
// linked from the type line instead).
func propRows(s *openapi3.Schema) []propRow {
	var rows []propRow
	for name, p := range s.Properties {
		rows = append(rows, propRow{Name: name, Schema: p, Required: slices.Contains(s.Required, name)})
	}
	for _, part := range s.AllOf {
		if part != nil && part.Ref == "" && part.Value != nil {
			rows = append(rows, propRows(part.Value)...)
		}
	}
	slices.SortFunc(rows, func(a, b propRow) int { return strings.Compare(a.Name, b.Name) })
	return rows
}

func lower(s string) string { return strings.ToLower(s) }

var docsPage = template.Must(template.New("docs").Funcs(template.FuncMap{
	"typeOf": typeOf, "props": propRows, "lower": lower,
	"schemaRef": func(s *openapi3.Schema) *openapi3.SchemaRef { return &openapi3.SchemaRef{Value: s} },
	"required":  func(s *openapi3.Schema, name string) bool { return slices.Contains(s.Required, name) },
	"sortedContent": func(c openapi3.Content) []string {
		keys := make([]string, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Info.Title}} {{.Info.Version}}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
header{background:#1d2330;color:#fff;padding:1.2em 2em}header a{color:#9cc3ff}
main{display:flex}nav{width:16em;padding:1em;position:sticky;top:0;height:100vh;overflow:auto;background:#eef0f4;font-size:13px}
nav a{display:block;color:#1d2330;text-decoration:none;padding:1px 0}section{flex:1;padding:1em 2em;max-width:70em}
.op{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:1em 0;padding:.8em 1em}
.m{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;color:#fff;font-weight:600;font-size:12px;padding:2px 6px;margin-right:.6em}
.get{background:#2f7ed8}.post{background:#2ca05a}.put,.patch{background:#d88a2f}.delete{background:#d83f2f}.head,.options{background:#777}
code,.path{font-family:ui-monospace,monospace}.path{font-weight:600}.desc{white-space:pre-wrap;color:#3b4252}
table{border-collapse:collapse;margin:.4em 0;width:100%;font-size:13px}td,th{border-bottom:1px solid #e5e8ee;padding:3px 6px;text-align:left;vertical-align:top}
.sec{font-size:12px;color:#5a6272}.dep{color:#d83f2f}h3{margin-top:1.6em}
</style></head><body>
<header><h1>{{.Info.Title}} <small>{{.Info.Version}}</small></h1>
{{with .Info.Description}}<div class="desc">{{.}}</div>{{end}}
<p>Contract: <a href="openapi.yaml">openapi.yaml</a>{{range .Spec.Servers}} · server <code>{{.URL}}</code>{{end}}</p></header>
<main><nav>{{range .Tags}}<strong>{{.Name}}</strong>{{range .Ops}}<a href="#op-{{.ID}}">{{.Method}} {{.Path}}</a>{{end}}{{end}}
{{if .Schemas}}<strong>Schemas</strong>{{range .Schemas}}<a href="#schema-{{.Name}}">{{.Name}}</a>{{end}}{{end}}</nav>
<section>
{{range .Tags}}<h2 id="tag-{{.Name}}">{{.Name}}</h2>{{with .Description}}<div class="desc">{{.}}</div>{{end}}
{{range .Ops}}<div class="op" id="op-{{.ID}}">
<div><span class="m {{lower .Method}}">{{.Method}}</span><span class="path">{{.Path}}</span> {{if .Deprecated}}<span class="dep">deprecated</span>{{end}}</div>
<p><strong>{{.Summary}}</strong> <code>{{.ID}}</code></p>
{{with .Description}}<div class="desc">{{.}}</div>{{end}}
<p class="sec">Auth: {{range $i, $s := .Security}}{{if $i}} or {{end}}{{$s}}{{end}}</p>
{{if .Params}}<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th>description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code></td><td>{{.In}}</td><td>{{typeOf .Schema}}</td><td>{{if .Required}}yes{{end}}</td><td class="desc">{{.Description}}</td></tr>{{end}}</table>{{end}}
{{with .Body}}<p>Request body{{if .Required}} (required){{end}}:{{$c := .Content}}{{range sortedContent .Content}} <code>{{.}}</code> {{typeOf (index $c .).Schema}}{{end}}</p>{{with .Description}}<div class="desc">{{.}}</div>{{end}}{{end}}
<table><tr><th>status</th><th>description</th><th>body</th></tr>
{{range .Responses}}<tr><td>{{.Status}}</td><td class="desc">{{with .Description}}{{.}}{{end}}</td><td>{{$c := .Content}}{{range sortedContent .Content}}<code>{{.}}</code> {{typeOf (index $c .).Schema}}<br>{{end}}</td></tr>{{end}}</table>
</div>{{end}}{{end}}
{{if .Schemas}}<h2>Schemas</h2>{{end}}
{{range .Schemas}}<div class="op" id="schema-{{.Name}}"><p><strong>{{.Name}}</strong> — {{typeOf (schemaRef .Schema)}}</p>
{{with .Schema.Description}}<div class="desc">{{.}}</div>{{end}}
{{with props .Schema}}<table><tr><th>property</th><th>type</th><th>required</th><th>description</th></tr>
{{range .}}<tr><td><code>{{.Name}}</code></td><td>{{typeOf .Schema}}</td><td>{{if .Required}}yes{{end}}</td><td class="desc">{{with .Schema.Value}}{{.Description}}{{end}}</td></tr>{{end}}</table>{{end}}
</div>{{end}}
</section></main></body></html>
`))
