package specs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The content contract test reads seed 000 (the content service interface document), parses its
// resource field lists, endpoint tables, transition table and authentication section, and checks
// that specs/openapi/content.yaml states every one of them: operations (method + path, success
// status, parameters, bodies), schemas (fields, type, format, nullability, required, enums).

const contentSeedPrefix = "000_"

// ---- seed model ----

// contentSeedType is a type as the seed states it: a primitive (with format), an array, a map of
// strings, a reference to another seed resource, an inline shape, or a literal value.
type contentSeedType struct {
	Kind         string // string, integer, number, boolean, object, array, ref, shape
	Format       string // uuid, date-time, int64, binary
	Nullable     bool
	Enum         []string
	Items        *contentSeedType
	Ref          string // resource name (Kind ref) or literal value (Kind literal)
	Shape        *contentSeedShape
	StringValues bool   // object whose values are strings
	Default      string // stated default value
	Repeated     bool   // repeated query parameter
}

type contentSeedField struct {
	Name     string
	Type     contentSeedType
	Required bool
}

// contentSeedShape is an object: optionally all fields of another resource, plus its own fields.
type contentSeedShape struct {
	Base   string
	Fields []contentSeedField
}

type contentSeedResource struct {
	Name   string
	Shape  *contentSeedShape
	SameAs string // "same shape as X"
}

type contentSeedBody struct {
	Kind     string // ref, shape, multipart
	Ref      string
	Shape    *contentSeedShape
	Optional bool
}

type contentSeedOperation struct {
	Method, Path  string
	Status        int
	Admin         bool
	ServiceOnly   bool
	Query, PathPs []contentSeedField
	Body          *contentSeedBody
	Response      *contentSeedBody // nil when no body shape is stated
	FreeForm      bool             // "object with arbitrary properties"
}

type contentSeedTransition struct {
	Method, Path string
	Status       int
	Event        string
}

type contentSeed struct {
	Resources   map[string]*contentSeedResource
	Order       []string
	Operations  []contentSeedOperation
	Transitions []contentSeedTransition
	Schemes     []string
	BasePrefix  string // version prefix the base address carries, e.g. /v1
	TableRows   int    // endpoint table rows seen, to prove every row was parsed
}

// ---- seed parsing ----

var (
	contentResourceLine = regexp.MustCompile(`^- ([A-Z][A-Za-z]+): (.*)$`)
	contentFieldName    = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	contentIdentRe      = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	contentMethodRow    = regexp.MustCompile(`^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|`)
	contentStatusPrefix = regexp.MustCompile(`^(\d{3})\b`)
	contentSchemeName   = regexp.MustCompile(`\b([A-Z][A-Za-z]*(?:Auth|Token))\b`)
	contentTriggerRe    = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) (\S+)$`)
	contentRespondsRe   = regexp.MustCompile(`responds (\d{3})`)
	contentEventRe      = regexp.MustCompile(`event ([a-z0-9_.]+\.v\d+)`)
	contentVersionRe    = regexp.MustCompile(`carries the version prefix (/v\d+)`)
)

type contentSeedParser struct {
	names map[string]bool // resource names, so "status: Generating" reads as a literal
}

// contentSplitTop splits s on sep outside (), {} and [].
func contentSplitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + len(string(r))
			}
		}
	}
	return append(out, s[start:])
}

// contentCutTop returns s up to the first top-level occurrence of one of stops.
func contentCutTop(s string, stops ...string) string {
	depth := 0
	for i, r := range s {
		switch r {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		}
		if depth == 0 {
			for _, st := range stops {
				if strings.HasPrefix(s[i:], st) {
					return s[:i]
				}
			}
		}
	}
	return s
}

// contentMatching returns the index of the bracket closing the one at s[open].
func contentMatching(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// parseFieldList reads "a, b (strings), c (uuid, nullable), d (req)": a plural type applies to
// the untyped names before it, a singular one to its own name only; untyped names are strings.
func (p *contentSeedParser) parseFieldList(s string) ([]contentSeedField, error) {
	var out []contentSeedField
	var pending []int
	for _, item := range contentSplitTop(s, ',') {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, annot, has := item, "", false
		if i := strings.Index(item, " ("); i > 0 {
			end := contentMatching(item, i+1)
			if end != len(item)-1 {
				return nil, fmt.Errorf("unbalanced annotation in %q", item)
			}
			name, annot, has = item[:i], item[i+2:end], true
		}
		if !contentFieldName.MatchString(name) {
			return nil, fmt.Errorf("not a field name: %q (in %q)", name, s)
		}
		f := contentSeedField{Name: name, Type: contentSeedType{Kind: "string"}}
		if !has {
			out = append(out, f)
			pending = append(pending, len(out)-1)
			continue
		}
		t, req, plural, err := p.parseAnnot(annot)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		f.Type, f.Required = t, req
		out = append(out, f)
		if plural {
			for _, i := range pending {
				out[i].Type = t
			}
		}
		pending = nil
	}
	return out, nil
}

// parseAnnot reads the inside of "(...)": a type, then modifiers (req, nullable, default N,
// one of a, b, string values, repeated parameter); prose after a ';' or after the type is ignored.
func (p *contentSeedParser) parseAnnot(annot string) (t contentSeedType, req, plural bool, err error) {
	parts := contentSplitTop(contentSplitTop(annot, ';')[0], ',')
	typed := false
	for i := 0; i < len(parts); i++ {
		part := strings.TrimSpace(parts[i])
		switch {
		case part == "req":
			req = true
		case part == "nullable":
			t.Nullable = true
		case part == "string values":
			t.StringValues = true
		case part == "repeated parameter":
			t.Repeated = true
		case strings.HasPrefix(part, "default "):
			t.Default = strings.TrimPrefix(part, "default ")
		case strings.HasPrefix(part, "one of "):
			t.Enum = append(t.Enum, strings.TrimPrefix(part, "one of "))
			for _, rest := range parts[i+1:] {
				t.Enum = append(t.Enum, strings.TrimSpace(rest))
			}
			i = len(parts)
		case !typed:
			var pt contentSeedType
			if pt, plural, err = p.parseType(part); err != nil {
				return t, false, false, err
			}
			pt.Nullable, pt.StringValues, pt.Default, pt.Repeated, pt.Enum = t.Nullable, t.StringValues, t.Default, t.Repeated, t.Enum
			t, typed = pt, true
		default:
			// prose after the type, e.g. "the color element keys to detect"
		}
	}
	if !typed {
		t.Kind = "string"
	}
	return t, req, plural, nil
}

// parseType reads a type expression: primitives (singular or plural), uuid, date-time, int64,
// binary, object, "array of X", "X[]", "{...}", "X fields plus ...", or a resource name.
func (p *contentSeedParser) parseType(s string) (contentSeedType, bool, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "string", "integer", "number", "boolean", "object":
		return contentSeedType{Kind: s}, false, nil
	case "strings", "integers", "numbers", "booleans":
		return contentSeedType{Kind: strings.TrimSuffix(s, "s")}, true, nil
	case "uuid", "date-time", "binary":
		return contentSeedType{Kind: "string", Format: s}, false, nil
	case "int64":
		return contentSeedType{Kind: "integer", Format: "int64"}, false, nil
	}
	switch {
	case strings.HasPrefix(s, "array of "):
		it, _, err := p.parseType(strings.TrimPrefix(s, "array of "))
		return contentSeedType{Kind: "array", Items: &it}, false, err
	case strings.HasSuffix(s, "[]"):
		it, _, err := p.parseType(strings.TrimSuffix(s, "[]"))
		return contentSeedType{Kind: "array", Items: &it}, false, err
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		it, _, err := p.parseType(s[1 : len(s)-1])
		return contentSeedType{Kind: "array", Items: &it}, false, err
	case strings.HasPrefix(s, "{") && contentMatching(s, 0) == len(s)-1:
		sh, err := p.parseBrace(s[1 : len(s)-1])
		return contentSeedType{Kind: "shape", Shape: sh}, false, err
	}
	if base, rest, ok := strings.Cut(s, " fields plus "); ok && contentIdentRe.MatchString(base) {
		fields, err := p.parseFieldList(strings.ReplaceAll(rest, " and ", ", "))
		return contentSeedType{Kind: "shape", Shape: &contentSeedShape{Base: base, Fields: fields}}, false, err
	}
	if contentIdentRe.MatchString(s) && s[0] >= 'A' && s[0] <= 'Z' {
		if p.names[s] {
			return contentSeedType{Kind: "ref", Ref: s}, false, nil
		}
		return contentSeedType{Kind: "literal", Ref: s}, false, nil
	}
	return contentSeedType{}, false, fmt.Errorf("unknown type %q", s)
}

// parseBrace reads an inline shape: "name type", "name type (req)", "name (req): [{...}]",
// "name: X[]", "name: Literal", or a bare name (a string).
func (p *contentSeedParser) parseBrace(s string) (*contentSeedShape, error) {
	sh := &contentSeedShape{}
	for _, entry := range contentSplitTop(s, ',') {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name := entry
		if i := strings.IndexAny(entry, " :("); i > 0 {
			name = entry[:i]
		}
		if !contentFieldName.MatchString(name) {
			return nil, fmt.Errorf("not a field name: %q (in {%s})", name, s)
		}
		f := contentSeedField{Name: name, Type: contentSeedType{Kind: "string"}}
		rest := strings.TrimSpace(entry[len(name):])
		for rest != "" {
			switch rest[0] {
			case '(':
				end := contentMatching(rest, 0)
				if end < 0 {
					return nil, fmt.Errorf("unbalanced %q", entry)
				}
				t, req, _, err := p.parseAnnot(rest[1:end])
				if err != nil {
					return nil, err
				}
				if req {
					f.Required = true
				}
				if strings.TrimSpace(rest[1:end]) != "req" {
					f.Type = t
				}
				rest = strings.TrimSpace(rest[end+1:])
			case ':':
				t, _, err := p.parseType(rest[1:])
				if err != nil {
					return nil, err
				}
				f.Type, rest = t, ""
			default:
				words := contentCutTop(rest, " (", ":")
				t, _, err := p.parseType(words)
				if err != nil {
					return nil, err
				}
				f.Type, rest = t, strings.TrimSpace(rest[len(words):])
			}
		}
		sh.Fields = append(sh.Fields, f)
	}
	return sh, nil
}

// parseBodyText reads a request or response cell (after any status and markers).
func (p *contentSeedParser) parseBodyText(s string) (*contentSeedBody, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "{"):
		end := contentMatching(s, 0)
		sh, err := p.parseBrace(s[1:end])
		return &contentSeedBody{Kind: "shape", Shape: sh}, err
	case strings.Contains(s, "multipart/form-data"):
		rest := s[strings.Index(s, "multipart/form-data")+len("multipart/form-data"):]
		rest = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(rest, ":"), ","), " field")
		fields, err := p.parseFieldList(contentCutTop(rest, ";", ". "))
		return &contentSeedBody{Kind: "multipart", Shape: &contentSeedShape{Fields: fields}}, err
	}
	for _, w := range strings.Fields(contentCutTop(s, ";", " (")) {
		if p.names[w] {
			return &contentSeedBody{Kind: "ref", Ref: w}, nil
		}
	}
	return nil, nil
}

func parseContentSeed(text string) (*contentSeed, error) {
	seed := &contentSeed{Resources: map[string]*contentSeedResource{}}
	p := &contentSeedParser{names: map[string]bool{}}
	lines := strings.Split(text, "\n")
	section := ""
	for _, l := range lines {
		if m := contentVersionRe.FindStringSubmatch(l); m != nil && seed.BasePrefix == "" {
			seed.BasePrefix = m[1]
		}
		if strings.HasPrefix(l, "## ") {
			section = strings.TrimPrefix(l, "## ")
		}
		if section == "Resources and fields" {
			if m := contentResourceLine.FindStringSubmatch(l); m != nil {
				p.names[m[1]] = true
			}
		}
	}
	section = ""
	for _, l := range lines {
		if strings.HasPrefix(l, "## ") {
			section = strings.TrimPrefix(l, "## ")
			continue
		}
		switch section {
		case "Resources and fields":
			m := contentResourceLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			name, body := m[1], strings.TrimSuffix(strings.TrimSpace(m[2]), ".")
			r := &contentSeedResource{Name: name}
			if base, ok := strings.CutPrefix(body, "same shape as "); ok {
				r.SameAs = base
			} else {
				sh := &contentSeedShape{}
				if rest, ok := strings.CutPrefix(body, "all "); ok {
					base, fields, found := strings.Cut(rest, " fields plus ")
					if !found {
						return nil, fmt.Errorf("resource %s: cannot read %q", name, body)
					}
					sh.Base, body = base, fields
				}
				fields, err := p.parseFieldList(body)
				if err != nil {
					return nil, fmt.Errorf("resource %s: %w", name, err)
				}
				sh.Fields = fields
				r.Shape = sh
			}
			seed.Resources[name] = r
			seed.Order = append(seed.Order, name)
		case "Endpoints":
			if !contentMethodRow.MatchString(l) {
				continue
			}
			seed.TableRows++
			cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
			if len(cells) != 4 {
				return nil, fmt.Errorf("endpoint row with %d cells: %s", len(cells), l)
			}
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			op := contentSeedOperation{Method: cells[0], Path: cells[1], Status: 200}
			req, resp := cells[2], cells[3]
			if strings.Contains(req, "(Admin)") {
				op.Admin = true
				req = strings.TrimSpace(strings.ReplaceAll(req, "(Admin)", ""))
			}
			op.ServiceOnly = strings.Contains(req, "ServiceToken scheme only")
			var err error
			switch {
			case strings.HasPrefix(req, "query:"):
				op.Query, err = p.parseFieldList(strings.TrimPrefix(req, "query:"))
			case strings.HasPrefix(req, "path:"):
				op.PathPs, err = p.parseFieldList(strings.TrimPrefix(req, "path:"))
			case strings.HasPrefix(req, "optional body "):
				op.Body, err = p.parseBodyText(strings.TrimPrefix(req, "optional body "))
				if op.Body != nil {
					op.Body.Optional = true
				}
			case strings.HasPrefix(req, "body "):
				op.Body, err = p.parseBodyText(strings.TrimPrefix(req, "body "))
			case strings.Contains(req, "multipart/form-data"):
				op.Body, err = p.parseBodyText(req)
			case strings.HasPrefix(req, "none"):
			default:
				err = fmt.Errorf("cannot read request %q", req)
			}
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", op.Method, op.Path, err)
			}
			if m := contentStatusPrefix.FindStringSubmatch(resp); m != nil {
				op.Status, _ = strconv.Atoi(m[1])
				resp = strings.TrimSpace(strings.TrimLeft(resp[3:], ",;"))
			}
			op.FreeForm = strings.Contains(resp, "arbitrary properties")
			if !strings.HasPrefix(resp, "no body") {
				if op.Response, err = p.parseBodyText(resp); err != nil {
					return nil, fmt.Errorf("%s %s response: %w", op.Method, op.Path, err)
				}
			}
			seed.Operations = append(seed.Operations, op)
		case "States and transitions":
			cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
			if len(cells) != 5 {
				continue
			}
			m := contentTriggerRe.FindStringSubmatch(strings.TrimSpace(cells[1]))
			if m == nil {
				continue
			}
			tr := contentSeedTransition{Method: m[1], Path: m[2]}
			if s := contentRespondsRe.FindStringSubmatch(cells[4]); s != nil {
				tr.Status, _ = strconv.Atoi(s[1])
			}
			if e := contentEventRe.FindStringSubmatch(cells[4]); e != nil {
				tr.Event = e[1]
			}
			seed.Transitions = append(seed.Transitions, tr)
		case "Authentication":
			for _, m := range contentSchemeName.FindAllStringSubmatch(l, -1) {
				if !slices.Contains(seed.Schemes, m[1]) {
					seed.Schemes = append(seed.Schemes, m[1])
				}
			}
		}
	}
	return seed, nil
}

// ---- checking the spec ----

type contentChecker struct {
	seed     *contentSeed
	doc      *openapi3.T
	problems []string
}

func (c *contentChecker) addf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// fieldsOf resolves a shape's fields, following "all X fields plus" and "same shape as".
func (c *contentChecker) fieldsOf(sh *contentSeedShape) []contentSeedField {
	var out []contentSeedField
	if sh.Base != "" {
		if base, ok := c.seed.Resources[sh.Base]; ok {
			out = append(out, c.resourceFields(base)...)
		} else {
			c.addf("seed: unknown base resource %s", sh.Base)
		}
	}
	return append(out, sh.Fields...)
}

func (c *contentChecker) resourceFields(r *contentSeedResource) []contentSeedField {
	if r.SameAs != "" {
		return c.resourceFields(c.seed.Resources[r.SameAs])
	}
	return c.fieldsOf(r.Shape)
}

func (c *contentChecker) checkShape(where string, s *openapi3.Schema, fields []contentSeedField) {
	if !s.Type.Is("object") {
		c.addf("%s: type %v, want object", where, s.Type.Slice())
	}
	for _, f := range fields {
		prop, ok := s.Properties[f.Name]
		if !ok || prop == nil || prop.Value == nil {
			c.addf("%s.%s: field missing", where, f.Name)
			continue
		}
		c.checkType(where+"."+f.Name, prop, f.Type)
		if f.Required && !slices.Contains(s.Required, f.Name) {
			c.addf("%s.%s: the seed says req; not in the required list", where, f.Name)
		}
	}
}

func (c *contentChecker) checkType(where string, ref *openapi3.SchemaRef, t contentSeedType) {
	if t.Kind == "ref" {
		if want := "#/components/schemas/" + t.Ref; ref.Ref != want {
			c.addf("%s: $ref %q, want %q", where, ref.Ref, want)
		}
		return
	}
	s := ref.Value
	switch t.Kind {
	case "literal":
		if !s.Type.Is("string") || !slices.Contains(contentEnumStrings(s), t.Ref) {
			c.addf("%s: want a string whose enum holds %q, got %v %v", where, t.Ref, s.Type.Slice(), s.Enum)
		}
		return
	case "shape":
		c.checkShape(where, s, c.fieldsOf(t.Shape))
	case "array":
		if !s.Type.Is("array") || s.Items == nil {
			c.addf("%s: type %v, want array", where, s.Type.Slice())
			break
		}
		c.checkType(where+"[]", s.Items, *t.Items)
	case "object":
		if !s.Type.Is("object") {
			c.addf("%s: type %v, want object", where, s.Type.Slice())
		}
		if t.StringValues {
			ap := s.AdditionalProperties.Schema
			if ap == nil || ap.Value == nil || !ap.Value.Type.Is("string") {
				c.addf("%s: want additionalProperties of type string", where)
			}
		}
	default:
		if !s.Type.Is(t.Kind) {
			c.addf("%s: type %v, want %s", where, s.Type.Slice(), t.Kind)
		}
		if t.Format != "" && s.Format != t.Format {
			c.addf("%s: format %q, want %q", where, s.Format, t.Format)
		}
	}
	if s.Nullable != t.Nullable {
		c.addf("%s: nullable %v, the seed says %v", where, s.Nullable, t.Nullable)
	}
	if len(t.Enum) > 0 {
		got, want := contentEnumStrings(s), slices.Clone(t.Enum)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			c.addf("%s: enum %v, want %v", where, got, want)
		}
	}
	if t.Default != "" && fmt.Sprint(s.Default) != t.Default {
		c.addf("%s: default %v, want %s", where, s.Default, t.Default)
	}
}

func contentEnumStrings(s *openapi3.Schema) []string {
	var out []string
	for _, e := range s.Enum {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

func (c *contentChecker) checkResources() {
	for _, name := range c.seed.Order {
		r := c.seed.Resources[name]
		ref, ok := c.doc.Components.Schemas[name]
		if !ok || ref.Value == nil {
			c.addf("schema %s: missing", name)
			continue
		}
		fields := c.resourceFields(r)
		if r.SameAs != "" {
			// Decision (DESIGN: PATCH bodies are partial): a "same shape as" update schema keeps the
			// fields and types of its create schema, each optional.
			fields = slices.Clone(fields)
			for i := range fields {
				fields[i].Required = false
			}
		}
		c.checkShape(name, ref.Value, fields)
		// Decision (DESIGN: PATCH bodies are partial): a "same shape as" update schema keeps the
		// fields of its create schema, each optional.
		if r.SameAs != "" && len(ref.Value.Required) > 0 {
			c.addf("schema %s: update shape must leave every field optional, requires %v", name, ref.Value.Required)
		}
	}
}

func (c *contentChecker) operation(method, path string) (*openapi3.PathItem, *openapi3.Operation) {
	item := c.doc.Paths.Value(path)
	if item == nil {
		return nil, nil
	}
	return item, item.GetOperation(method)
}

func (c *contentChecker) param(item *openapi3.PathItem, op *openapi3.Operation, in, name string) *openapi3.Parameter {
	for _, list := range []openapi3.Parameters{op.Parameters, item.Parameters} {
		for _, p := range list {
			if p.Value != nil && p.Value.In == in && p.Value.Name == name {
				return p.Value
			}
		}
	}
	return nil
}

func (c *contentChecker) checkBody(where string, content openapi3.Content, b *contentSeedBody) {
	mediaType := "application/json"
	if b.Kind == "multipart" {
		mediaType = "multipart/form-data"
	}
	mt := content.Get(mediaType)
	if mt == nil || mt.Schema == nil {
		c.addf("%s: no %s body", where, mediaType)
		return
	}
	switch b.Kind {
	case "ref":
		c.checkType(where, mt.Schema, contentSeedType{Kind: "ref", Ref: b.Ref})
	default:
		c.checkShape(where, mt.Schema.Value, c.fieldsOf(b.Shape))
	}
}

func (c *contentChecker) checkOperations() {
	for _, so := range c.seed.Operations {
		id := so.Method + " " + so.Path
		item, op := c.operation(so.Method, so.Path)
		if op == nil {
			c.addf("%s: operation missing", id)
			continue
		}
		status := strconv.Itoa(so.Status)
		resp := op.Responses.Value(status)
		if resp == nil {
			c.addf("%s: success status %s not declared", id, status)
		}
		for code := range op.Responses.Map() {
			if strings.HasPrefix(code, "2") && code != status {
				c.addf("%s: success status %s besides the seed's %s", id, code, status)
			}
		}
		for _, in := range []struct {
			in     string
			fields []contentSeedField
		}{{"query", so.Query}, {"path", so.PathPs}} {
			for _, f := range in.fields {
				p := c.param(item, op, in.in, f.Name)
				if p == nil {
					c.addf("%s: %s parameter %s missing", id, in.in, f.Name)
					continue
				}
				c.checkType(fmt.Sprintf("%s %s.%s", id, in.in, f.Name), p.Schema, f.Type)
				if f.Required && !p.Required {
					c.addf("%s: %s parameter %s must be required", id, in.in, f.Name)
				}
				if f.Type.Repeated && ((p.Style != "" && p.Style != "form") || (p.Explode != nil && !*p.Explode)) {
					c.addf("%s: %s parameter %s must be a repeated (form, explode) parameter", id, in.in, f.Name)
				}
			}
		}
		if so.Body != nil {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				c.addf("%s: request body missing", id)
			} else {
				c.checkBody(id+" body", op.RequestBody.Value.Content, so.Body)
				if op.RequestBody.Value.Required == so.Body.Optional {
					c.addf("%s: request body required=%v, the seed says optional=%v", id, op.RequestBody.Value.Required, so.Body.Optional)
				}
			}
		}
		if resp != nil && resp.Value != nil {
			if so.Response != nil {
				c.checkBody(id+" response", resp.Value.Content, so.Response)
			}
			if so.FreeForm {
				mt := resp.Value.Content.Get("application/json")
				if mt == nil || mt.Schema == nil || !mt.Schema.Value.Type.Is("object") ||
					(mt.Schema.Value.AdditionalProperties.Has != nil && !*mt.Schema.Value.AdditionalProperties.Has) {
					c.addf("%s: response must be an object with arbitrary properties", id)
				}
			}
		}
		if so.Admin {
			if op.Responses.Value("403") == nil {
				c.addf("%s: (Admin) operation must declare 403", id)
			}
			if !strings.Contains(op.Description, "Admin: requires the `platform-admin` role") {
				c.addf("%s: (Admin) operation must say which role or scope it needs", id)
			}
		}
		if so.ServiceOnly {
			if op.Security == nil || len(*op.Security) != 1 || len((*op.Security)[0]) != 1 {
				c.addf("%s: must accept the ServiceToken scheme only", id)
			} else if _, ok := (*op.Security)[0]["ServiceToken"]; !ok {
				c.addf("%s: must accept the ServiceToken scheme only", id)
			}
		}
	}
}

func (c *contentChecker) checkTransitions() {
	for _, tr := range c.seed.Transitions {
		id := tr.Method + " " + tr.Path
		_, op := c.operation(tr.Method, tr.Path)
		if op == nil {
			c.addf("%s (transition): operation missing", id)
			continue
		}
		if tr.Status != 0 && op.Responses.Value(strconv.Itoa(tr.Status)) == nil {
			c.addf("%s (transition): responds %d not declared", id, tr.Status)
		}
		if tr.Event != "" && !strings.Contains(op.Description, tr.Event) {
			c.addf("%s (transition): description must name the event %s", id, tr.Event)
		}
	}
}

func (c *contentChecker) checkSecurity() {
	for _, name := range c.seed.Schemes {
		s, ok := c.doc.Components.SecuritySchemes[name]
		if !ok || s.Value == nil {
			c.addf("security scheme %s: missing", name)
			continue
		}
		if s.Value.Type != "http" || s.Value.Scheme != "bearer" {
			c.addf("security scheme %s: want http bearer, got %s %s", name, s.Value.Type, s.Value.Scheme)
		}
		accepted := false
		for _, req := range c.doc.Security {
			if _, ok := req[name]; ok && len(req) == 1 {
				accepted = true
			}
		}
		if !accepted {
			c.addf("security scheme %s: not accepted on its own by default (global security)", name)
		}
	}
}

// checkServers: the seed's base address carries the version prefix, so every server URL ends in it.
func (c *contentChecker) checkServers() {
	if len(c.doc.Servers) == 0 {
		c.addf("servers: none declared")
	}
	for _, s := range c.doc.Servers {
		if !strings.HasSuffix(strings.TrimSuffix(s.URL, "/"), c.seed.BasePrefix) {
			c.addf("server %s: must end in the version prefix %s", s.URL, c.seed.BasePrefix)
		}
	}
}

func checkContentSpec(seed *contentSeed, doc *openapi3.T) []string {
	c := &contentChecker{seed: seed, doc: doc}
	c.checkServers()
	c.checkResources()
	c.checkOperations()
	c.checkTransitions()
	c.checkSecurity()
	return c.problems
}

// ---- tests ----

func loadContentSeed(t *testing.T) *contentSeed {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(seedsDir(t), contentSeedPrefix+"*.txt"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("want exactly one content seed %s*.txt, got %v (%v)", contentSeedPrefix, matches, err)
	}
	text, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	seed, err := parseContentSeed(string(text))
	if err != nil {
		t.Fatalf("parsing %s: %v", matches[0], err)
	}
	// The parser must have read every endpoint row and found resources, schemes and transitions;
	// otherwise an empty inventory would pass vacuously.
	if len(seed.Operations) == 0 || len(seed.Operations) != seed.TableRows {
		t.Fatalf("parsed %d operations from %d endpoint rows", len(seed.Operations), seed.TableRows)
	}
	if len(seed.Resources) == 0 || len(seed.Schemes) == 0 || len(seed.Transitions) == 0 || seed.BasePrefix == "" {
		t.Fatalf("parsed %d resources, %d schemes, %d transitions, base prefix %q",
			len(seed.Resources), len(seed.Schemes), len(seed.Transitions), seed.BasePrefix)
	}
	for _, name := range seed.Order {
		if r := seed.Resources[name]; r.SameAs == "" && len(r.Shape.Fields) == 0 {
			t.Fatalf("resource %s parsed without fields", name)
		}
	}
	return seed
}

func loadContentSpec(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specPath("openapi/content.yaml"))
	if err != nil {
		t.Fatalf("loading content.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("content.yaml is not a valid OpenAPI document: %v", err)
	}
	return doc
}

func TestContentSpecStatesEverythingSeed000States(t *testing.T) {
	seed := loadContentSeed(t)
	doc := loadContentSpec(t)
	for _, p := range checkContentSpec(seed, doc) {
		t.Error(p)
	}
	t.Logf("checked %d operations, %d resources, %d transitions, schemes %v",
		len(seed.Operations), len(seed.Resources), len(seed.Transitions), seed.Schemes)
}

func TestContentInventoryCheckerReportsWhatASpecMisses(t *testing.T) {
	seed := loadContentSeed(t)
	schema := func(doc *openapi3.T, name string) *openapi3.Schema { return doc.Components.Schemas[name].Value }
	cases := []struct {
		name   string
		mutate func(doc *openapi3.T)
		want   string
	}{
		{"a removed field is reported", func(doc *openapi3.T) {
			delete(schema(doc, "Container").Properties, "use_count")
		}, "Container.use_count: field missing"},
		{"a field inherited through 'all X fields plus' is reported", func(doc *openapi3.T) {
			delete(schema(doc, "SceneFull").Properties, "overlap_at_end_sec")
		}, "SceneFull.overlap_at_end_sec: field missing"},
		{"a lost nullable is reported", func(doc *openapi3.T) {
			schema(doc, "SceneContentElement").Properties["repeater_item_id"].Value.Nullable = false
		}, "SceneContentElement.repeater_item_id: nullable false"},
		{"a lost int64 format is reported", func(doc *openapi3.T) {
			schema(doc, "Blog").Properties["view_count"].Value.Format = ""
		}, `Blog.view_count: format ""`},
		{"a lost required field is reported", func(doc *openapi3.T) {
			s := schema(doc, "ContainerCreate")
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == "slug" })
		}, "ContainerCreate.slug: the seed says req"},
		{"a field of an inline shape is reported", func(doc *openapi3.T) {
			delete(schema(doc, "AepPartUrl").Properties, "url")
		}, "part_urls[].url: field missing"},
		{"a changed enum is reported", func(doc *openapi3.T) {
			schema(doc, "SceneColorElement").Properties["attr_value"].Value.Enum = []any{"fill"}
		}, "SceneColorElement.attr_value: enum"},
		{"a removed operation is reported", func(doc *openapi3.T) {
			doc.Paths.Value("/fonts/{font_id}").Delete = nil
		}, "DELETE /fonts/{font_id}: operation missing"},
		{"a changed success status is reported", func(doc *openapi3.T) {
			op := doc.Paths.Value("/svg-previews/generate").Post
			op.Responses.Set("200", op.Responses.Value("202"))
			op.Responses.Delete("202")
		}, "POST /svg-previews/generate: success status 202 not declared"},
		{"a removed query parameter is reported", func(doc *openapi3.T) {
			op := doc.Paths.Value("/templates").Get
			op.Parameters = slices.DeleteFunc(op.Parameters, func(p *openapi3.ParameterRef) bool { return p.Value.Name == "tag_ids" })
		}, "GET /templates: query parameter tag_ids missing"},
		{"a wrong default is reported", func(doc *openapi3.T) {
			for _, p := range doc.Paths.Value("/templates/{container_id}/related").Get.Parameters {
				if p.Value.Name == "limit" {
					p.Value.Schema.Value.Default = 10
				}
			}
		}, "limit: default 10, want 8"},
		{"a ServiceToken-only operation that accepts a JWT is reported", func(doc *openapi3.T) {
			doc.Paths.Value("/project-servers").Get.Security = nil
		}, "GET /project-servers: must accept the ServiceToken scheme only"},
		{"an admin operation without 403 is reported", func(doc *openapi3.T) {
			doc.Paths.Value("/fonts").Post.Responses.Delete("403")
		}, "POST /fonts: (Admin) operation must declare 403"},
		{"a server without the version prefix is reported", func(doc *openapi3.T) {
			doc.Servers[0].URL = "http://{host}"
		}, "must end in the version prefix /v1"},
		{"a multipart field is reported", func(doc *openapi3.T) {
			delete(schema(doc, "SvgPreviewGenerateForm").Properties, "target_id")
		}, "POST /svg-previews/generate body.target_id: field missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := loadContentSpec(t)
			tc.mutate(doc)
			problems := checkContentSpec(seed, doc)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Fatalf("want a problem containing %q, got %q", tc.want, problems)
			}
		})
	}
}

func TestContentSeedFieldListsReadTypesAsTheNotationSays(t *testing.T) {
	p := &contentSeedParser{names: map[string]bool{"Tag": true}}
	cases := []struct {
		in   string
		want map[string]string // field -> kind/format[,nullable][,req]
	}{
		{"id (uuid), slug, name (strings), rank (integer)", map[string]string{"id": "string/uuid", "slug": "string/", "name": "string/", "rank": "integer/"}},
		{"name, description, music_id (uuid), sort (integer)", map[string]string{"name": "string/", "description": "string/", "music_id": "string/uuid", "sort": "integer/"}},
		{"parent_id (uuid, nullable), key (req), n (int64)", map[string]string{"parent_id": "string/uuid,nullable", "key": "string/,req", "n": "integer/int64"}},
		{"tags (array of Tag), title (object, string values)", map[string]string{"tags": "array/", "title": "object/"}},
	}
	for _, tc := range cases {
		fields, err := p.parseFieldList(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		got := map[string]string{}
		for _, f := range fields {
			s := f.Type.Kind + "/" + f.Type.Format
			if f.Type.Nullable {
				s += ",nullable"
			}
			if f.Required {
				s += ",req"
			}
			got[f.Name] = s
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.in, got, tc.want)
		}
	}
}
