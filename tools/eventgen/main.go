// Command eventgen generates the Go event types of package events from the AsyncAPI document:
// an envelope and a payload struct per event, enum types, strict decoding (UnmarshalJSON) and
// Validate methods that refuse a missing required field, a wrong type or format, a value outside
// an enum or a range, naming the field; a registry of event names; and the embedded document.
//
//	go run ./eventgen -in ../specs/asyncapi/events.yaml -out ../gen/events
//
// It supports the subset of AsyncAPI schema the document uses: objects of scalar fields (string,
// uuid, date-time, integer, int64, number, boolean), string enums (inline or $ref), arrays of
// scalars, nullability as `type: [T, "null"]`, minimum/maximum, maxLength (of strings, in
// characters), maxItems (of arrays) and boolean defaults. Anything
// else is an error, so the document cannot silently outgrow the generator.
package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

func main() {
	in := flag.String("in", "", "AsyncAPI document (YAML)")
	out := flag.String("out", "", "output directory (package events)")
	pkg := flag.String("package", "events", "Go package name")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: eventgen -in events.yaml -out dir")
		os.Exit(2)
	}
	if err := run(*in, *out, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "eventgen:", err)
		os.Exit(1)
	}
}

func run(in, out, pkg string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	doc, err := load(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"events.gen.go":       genTypes(doc, pkg),
		"runtime.gen.go":      strings.Replace(runtimeSrc, "package events", "package "+pkg, 1),
		"samples_gen_test.go": genSamples(doc, pkg),
		"decode_gen_test.go":  strings.Replace(decodeTestSrc, "package events", "package "+pkg, 1),
	}
	for name, code := range files {
		formatted, err := format.Source([]byte(code))
		if err != nil {
			return fmt.Errorf("format %s: %w\n%s", name, err, code)
		}
		if err := os.WriteFile(filepath.Join(out, name), formatted, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(out, "asyncapi.yaml"), src, 0o644)
}

// ---- document model ----

type document struct {
	schemas  []*schema // objects and enums, by name
	byName   map[string]*schema
	envelope *schema
	events   []*event
	channels []*channel
}

type schema struct {
	name        string
	description string
	enum        []string // non-nil: a string enum type
	fields      []*field // object
}

type field struct {
	json, goName string
	kind         string // string uuid datetime int int64 number bool object enum array
	enumType     string
	items        *field
	required     bool
	nullable     bool
	min, max     *float64
	maxLength    *int // strings: at most this many characters (Unicode code points)
	maxItems     *int // arrays: at most this many items
	def          *bool
	description  string
}

type event struct {
	name, constName, title, summary string
	producer                        string
	payload                         string // schema name
	channel                         *channel
	deprecated                      bool
}

type channel struct {
	key, goName, address string
	exchange, kind       string
	durable, autoDelete  bool
	params               []param
}

type param struct{ name, location string }

type node = map[string]any

func load(src []byte) (*document, error) {
	var root node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, err
	}
	var tree yaml.Node
	if err := yaml.Unmarshal(src, &tree); err != nil {
		return nil, err
	}
	propertyOrder = map[string][]string{}
	schemasNode := child(child(child(&tree, "components"), "schemas"), "")
	if schemasNode != nil {
		for i := 0; i+1 < len(schemasNode.Content); i += 2 {
			props := child(schemasNode.Content[i+1], "properties")
			if props == nil {
				continue
			}
			for j := 0; j+1 < len(props.Content); j += 2 {
				propertyOrder[schemasNode.Content[i].Value] = append(propertyOrder[schemasNode.Content[i].Value], props.Content[j].Value)
			}
		}
	}
	if v := str(root["asyncapi"]); !strings.HasPrefix(v, "3.") {
		return nil, fmt.Errorf("asyncapi %q: want 3.x", v)
	}
	comps := m(root["components"])
	d := &document{byName: map[string]*schema{}}
	schemas := m(comps["schemas"])
	for _, name := range sortedKeys(schemas) {
		s, err := parseSchema(name, m(schemas[name]))
		if err != nil {
			return nil, err
		}
		d.schemas = append(d.schemas, s)
		d.byName[name] = s
	}
	// Resolve enum references now that every schema is known.
	for _, s := range d.schemas {
		for _, f := range s.fields {
			if f.kind == "ref" {
				target, ok := d.byName[f.enumType]
				if !ok || target.enum == nil {
					return nil, fmt.Errorf("schema %s.%s: $ref %s is not a known enum schema", s.name, f.json, f.enumType)
				}
				f.kind = "enum"
			}
		}
	}

	chans := m(root["channels"])
	msgChannel := map[string]*channel{}
	for _, key := range sortedKeys(chans) {
		c := m(chans[key])
		amqp := m(m(c["bindings"])["amqp"])
		ex := m(amqp["exchange"])
		ch := &channel{key: key, goName: pascal(key), address: str(c["address"]),
			exchange: str(ex["name"]), kind: str(ex["type"]), durable: ex["durable"] == true, autoDelete: ex["autoDelete"] == true}
		if ch.exchange == "" {
			return nil, fmt.Errorf("channel %s: no amqp exchange binding", key)
		}
		params := m(c["parameters"])
		for _, p := range sortedKeys(params) {
			loc := str(m(params[p])["location"])
			if !strings.HasPrefix(loc, "$message.payload#/") {
				return nil, fmt.Errorf("channel %s parameter %s: location must be $message.payload#/...", key, p)
			}
			ch.params = append(ch.params, param{name: p, location: strings.TrimPrefix(loc, "$message.payload#")})
		}
		d.channels = append(d.channels, ch)
		for _, mk := range sortedKeys(m(c["messages"])) {
			ref := str(m(m(c["messages"])[mk])["$ref"])
			msgChannel[strings.TrimPrefix(ref, "#/components/messages/")] = ch
		}
	}

	msgs := m(comps["messages"])
	for _, key := range sortedKeys(msgs) {
		msg := m(msgs[key])
		ev := &event{name: str(msg["name"]), constName: key, title: str(msg["title"]), summary: str(msg["summary"]),
			channel: msgChannel[key], deprecated: msg["deprecated"] == true}
		if ev.channel == nil {
			return nil, fmt.Errorf("message %s is on no channel", key)
		}
		all, _ := m(msg["payload"])["allOf"].([]any)
		if len(all) != 2 {
			return nil, fmt.Errorf("message %s: payload must be allOf [envelope, overrides]", key)
		}
		envName := refName(str(m(all[0])["$ref"]))
		env := d.byName[envName]
		if env == nil || env.enum != nil {
			return nil, fmt.Errorf("message %s: envelope %q is not an object schema", key, envName)
		}
		if d.envelope != nil && d.envelope != env {
			return nil, fmt.Errorf("message %s: a second envelope schema %s", key, envName)
		}
		d.envelope = env
		props := m(m(all[1])["properties"])
		if got := str(m(props["event_type"])["const"]); got != ev.name {
			return nil, fmt.Errorf("message %s: event_type const %q differs from name %q", key, got, ev.name)
		}
		ev.producer = str(m(props["producer"])["const"])
		ev.payload = refName(str(m(props["data"])["$ref"]))
		if s := d.byName[ev.payload]; s == nil || s.enum != nil {
			return nil, fmt.Errorf("message %s: data schema %q is not an object schema", key, ev.payload)
		}
		d.events = append(d.events, ev)
	}
	if d.envelope == nil {
		return nil, fmt.Errorf("no messages")
	}
	return d, nil
}

func parseSchema(name string, s node) (*schema, error) {
	out := &schema{name: name, description: str(s["description"])}
	typ, _ := types(s["type"])
	switch typ {
	case "string":
		for _, v := range list(s["enum"]) {
			out.enum = append(out.enum, str(v))
		}
		if out.enum == nil {
			return nil, fmt.Errorf("schema %s: a top-level string schema must be an enum", name)
		}
		return out, nil
	case "object":
	default:
		return nil, fmt.Errorf("schema %s: unsupported type %q", name, typ)
	}
	required := map[string]bool{}
	for _, r := range list(s["required"]) {
		required[str(r)] = true
	}
	props := m(s["properties"])
	keys := orderedKeys(name, props)
	for _, k := range keys {
		f, err := parseField(name, k, m(props[k]))
		if err != nil {
			return nil, err
		}
		f.required = required[k]
		delete(required, k)
		out.fields = append(out.fields, f)
	}
	if len(required) > 0 {
		return nil, fmt.Errorf("schema %s: required names unknown properties %v", name, sortedKeys(required))
	}
	return out, nil
}

func parseField(owner, name string, p node) (*field, error) {
	f := &field{json: name, goName: pascal(name), description: str(p["description"])}
	if ref := str(p["$ref"]); ref != "" {
		f.kind, f.enumType = "ref", refName(ref)
		return f, nil
	}
	typ, nullable := types(p["type"])
	f.nullable = nullable
	switch typ {
	case "string":
		switch str(p["format"]) {
		case "uuid":
			f.kind = "uuid"
		case "date-time":
			f.kind = "datetime"
		case "":
			f.kind = "string"
		default:
			return nil, fmt.Errorf("%s.%s: unsupported format %q", owner, name, p["format"])
		}
		if e := list(p["enum"]); e != nil {
			return nil, fmt.Errorf("%s.%s: declare enums as a component schema and $ref it", owner, name)
		}
	case "integer":
		f.kind = "int"
		if str(p["format"]) == "int64" {
			f.kind = "int64"
		}
	case "number":
		f.kind = "number"
	case "boolean":
		f.kind = "bool"
		if d, ok := p["default"].(bool); ok {
			f.def = &d
		}
	case "object":
		f.kind = "object"
	case "array":
		f.kind = "array"
		it, err := parseField(owner, name+"[]", m(p["items"]))
		if err != nil {
			return nil, err
		}
		if it.kind == "array" || it.kind == "object" || it.kind == "ref" || it.nullable {
			return nil, fmt.Errorf("%s.%s: arrays of scalars only", owner, name)
		}
		f.items = it
	default:
		return nil, fmt.Errorf("%s.%s: unsupported type %v", owner, name, p["type"])
	}
	if _, ok := p["default"]; ok && f.def == nil {
		return nil, fmt.Errorf("%s.%s: only boolean defaults are supported", owner, name)
	}
	f.min, f.max = num(p["minimum"]), num(p["maximum"])
	for key, dst := range map[string]**int{"maxLength": &f.maxLength, "maxItems": &f.maxItems} {
		v, ok := p[key]
		if !ok {
			continue
		}
		n, isInt := v.(int)
		if !isInt || n < 0 {
			return nil, fmt.Errorf("%s.%s: %s must be a non-negative integer, not %v", owner, name, key, v)
		}
		if (key == "maxLength") != (f.kind == "string") || (key == "maxItems") != (f.kind == "array") {
			return nil, fmt.Errorf("%s.%s: %s does not apply to a %s", owner, name, key, f.kind)
		}
		*dst = &n
	}
	return f, nil
}

// ---- code generation ----

func goType(f *field) string {
	switch f.kind {
	case "string":
		return "string"
	case "uuid":
		return "uuid.UUID"
	case "datetime":
		return "time.Time"
	case "int":
		return "int"
	case "int64":
		return "int64"
	case "number":
		return "float64"
	case "bool":
		return "bool"
	case "object":
		return "json.RawMessage"
	case "enum":
		return f.enumType
	case "array":
		return "[]" + goType(f.items)
	}
	panic(f.kind)
}

// pointer reports whether the Go field is a pointer: nullable fields, and optional scalars
// without a default (so that absent differs from the zero value).
func pointer(f *field) bool {
	if f.kind == "array" || f.kind == "object" {
		return false
	}
	if f.nullable {
		return true
	}
	return !f.required && f.def == nil
}

func fieldType(f *field) string {
	if pointer(f) {
		return "*" + goType(f)
	}
	return goType(f)
}

// decodeCall returns an expression of (value, ok) decoding raw for field f.
func decodeCall(f *field, path, raw string) string {
	switch f.kind {
	case "string":
		return fmt.Sprintf("d.str(%s, %s)", path, raw)
	case "uuid":
		return fmt.Sprintf("d.uuid(%s, %s)", path, raw)
	case "datetime":
		return fmt.Sprintf("d.time(%s, %s)", path, raw)
	case "int":
		return fmt.Sprintf("d.int(%s, %s)", path, raw)
	case "int64":
		return fmt.Sprintf("d.int64(%s, %s)", path, raw)
	case "number":
		return fmt.Sprintf("d.number(%s, %s)", path, raw)
	case "bool":
		return fmt.Sprintf("d.bool(%s, %s)", path, raw)
	case "object":
		return fmt.Sprintf("d.object(%s, %s)", path, raw)
	case "enum":
		return fmt.Sprintf("decodeEnum[%s](d, %s, %s)", f.enumType, path, raw)
	case "array":
		return fmt.Sprintf("decodeArray(d, %s, %s, (*decoder).%s)", path, raw, itemDecoder(f.items))
	}
	panic(f.kind)
}

func itemDecoder(f *field) string {
	switch f.kind {
	case "uuid", "int", "int64", "number", "bool":
		return f.kind
	case "string":
		return "str"
	case "datetime":
		return "time"
	}
	panic("array item " + f.kind)
}

func genTypes(d *document, pkg string) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("// Code generated by tools/eventgen from specs/asyncapi/events.yaml. DO NOT EDIT.\n\n")
	w("package %s\n\n", pkg)
	w("import (\n\t\"encoding/json\"\n\t\"time\"\n\n\t\"github.com/google/uuid\"\n)\n\n")

	w("// Event names: the envelope's event_type and the routing key.\nconst (\n")
	for _, ev := range d.events {
		w("\t// %s is %s: %s\n\t%s = %q\n", ev.constName, ev.name, oneLine(ev.summary), ev.constName, ev.name)
	}
	w(")\n\n")

	w("// Exchanges of the channels.\nconst (\n")
	for _, c := range d.channels {
		w("\t// Exchange%s is the %s exchange %q (durable %v, auto-delete %v).\n\tExchange%s = %q\n", c.goName, c.kind, c.exchange, c.durable, c.autoDelete, c.goName, c.exchange)
	}
	w(")\n\n")

	w("var channels = map[string]*Channel{\n")
	for _, c := range d.channels {
		w("\t%q: {Name: %q, Exchange: %q, ExchangeType: %q, Durable: %v, AutoDelete: %v, Address: %q, Params: map[string]string{", c.key, c.key, c.exchange, c.kind, c.durable, c.autoDelete, c.address)
		for _, p := range c.params {
			w("%q: %q, ", p.name, p.location)
		}
		w("}},\n")
	}
	w("}\n\n")

	w("var registry = map[string]eventInfo{\n")
	for _, ev := range d.events {
		w("\t%s: {producer: %q, channel: channels[%q], payload: newAs[%s], decode: func(b []byte) (Payload, error) { return asPayload(decode%s(b)) }},\n",
			ev.constName, ev.producer, ev.channel.key, ev.payload, ev.payload)
	}
	w("}\n\n")

	env := d.envelope
	for _, want := range []string{"event_id", "event_type", "event_time", "tenant_id", "data", "producer"} {
		if !slices.ContainsFunc(env.fields, func(f *field) bool { return f.json == want }) {
			panic(fmt.Sprintf("envelope %s lacks %s", env.name, want))
		}
	}
	w("// envelope is the envelope schema's Go type, for the runtime helpers.\ntype envelope = %s\n\n", env.name)
	for _, f := range env.fields {
		if f.json == "producer" {
			if f.kind == "enum" {
				w("func setProducer(e *envelope, s string) { p := %s(s); e.Producer = &p }\n\n", f.enumType)
				w("func producerOf(e envelope) string {\n\tif e.Producer == nil {\n\t\treturn \"\"\n\t}\n\treturn string(*e.Producer)\n}\n\n")
			} else {
				w("func setProducer(e *envelope, s string) { e.Producer = &s }\n\n")
				w("func producerOf(e envelope) string {\n\tif e.Producer == nil {\n\t\treturn \"\"\n\t}\n\treturn *e.Producer\n}\n\n")
			}
		}
	}

	for _, s := range d.schemas {
		if s.enum != nil {
			genEnum(&b, s)
		}
	}
	for _, s := range d.schemas {
		if s.enum == nil {
			genStruct(&b, d, s)
		}
	}
	return b.String()
}

func genEnum(b *strings.Builder, s *schema) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("%s\ntype %s string\n\n", doc(s.name+" is an enumeration of the AsyncAPI document.", s.description), s.name)
	w("// Values of %s.\nconst (\n", s.name)
	for _, v := range s.enum {
		w("\t%s%s %s = %q\n", s.name, pascal(v), s.name, v)
	}
	w(")\n\n")
	w("// %sValues lists every value of %s in document order.\nfunc %sValues() []%s { return []%s{", s.name, s.name, s.name, s.name, s.name)
	for _, v := range s.enum {
		w("%s%s, ", s.name, pascal(v))
	}
	w("} }\n\n")
	w("// Valid reports whether v is one of the values of %s.\nfunc (v %s) Valid() bool {\n\tswitch v {\n\tcase ", s.name, s.name)
	for i, v := range s.enum {
		if i > 0 {
			w(", ")
		}
		w("%s%s", s.name, pascal(v))
	}
	w(":\n\t\treturn true\n\t}\n\treturn false\n}\n\n")
	quoted := strings.Join(s.enum, ", ")
	w("func (%s) allowed() string { return %q }\n\n", s.name, quoted)
}

func genStruct(b *strings.Builder, d *document, s *schema) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	var ev *event
	for _, e := range d.events {
		if e.payload == s.name {
			ev = e
		}
	}
	w("%s\ntype %s struct {\n", doc(s.name+" is the schema "+s.name+" of the AsyncAPI document.", s.description), s.name)
	for _, f := range s.fields {
		tag := f.json
		if !f.required && f.def == nil {
			tag += ",omitempty"
		}
		notes := []string{"optional"}
		if f.required {
			notes[0] = "required"
		}
		if f.nullable {
			notes = append(notes, "nullable")
		}
		if f.min != nil || f.max != nil {
			notes = append(notes, fmt.Sprintf("range %s..%s", fnum(f.min), fnum(f.max)))
		}
		if f.def != nil {
			notes = append(notes, fmt.Sprintf("default %v when absent", *f.def))
		}
		line := fmt.Sprintf("%s (%s)", f.json, strings.Join(notes, ", "))
		if f.description != "" {
			line += ": " + oneLine(f.description)
		}
		w("\t// %s\n", line)
		w("\t%s %s `json:%q`\n", f.goName, fieldType(f), tag)
	}
	w("}\n\n")

	if ev != nil {
		w("// EventType returns %s.\nfunc (%s) EventType() string { return %s }\n\n", ev.constName, s.name, ev.constName)
	}

	// Validate: checks that need only the Go value.
	w("// Validate reports every required field left unset and every enum, range or length violation.\n")
	w("func (p %s) Validate() error {\n\tvar v validator\n", s.name)
	for _, f := range s.fields {
		genFieldCheck(b, f)
	}
	w("\treturn v.err()\n}\n\n")

	// UnmarshalJSON: strict decoding of every declared field, then Validate.
	w("// UnmarshalJSON decodes and validates p: a missing required field, a null where null is not\n// allowed, a wrong type or format and an enum, range or length violation are refused with the\n// field named. Unknown fields are ignored.\n")
	w("func (p *%s) UnmarshalJSON(b []byte) error {\n\tout, err := decode%s(b)\n\tif err != nil {\n\t\treturn err\n\t}\n\t*p = out\n\treturn nil\n}\n\n", s.name, s.name)
	// The decoding itself returns the value, so that the registry's decoder need not take
	// the address of a variable (which would move it to the heap) before boxing it.
	w("// decode%s is UnmarshalJSON returning the value.\n", s.name)
	w("func decode%s(b []byte) (%s, error) {\n\td, err := newDecoder(b)\n\tif err != nil {\n\t\treturn %s{}, err\n\t}\n\tvar out %s\n", s.name, s.name, s.name, s.name)
	for _, f := range s.fields {
		path := strconv.Quote(f.json)
		w("\tif raw, ok := d.field(%s, %v, %v); ok {\n", path, f.required, f.nullable)
		w("\t\tif v, ok := %s; ok {\n", decodeCall(f, path, "raw"))
		if pointer(f) {
			w("\t\t\tout.%s = &v\n", f.goName)
		} else {
			w("\t\t\tout.%s = v\n", f.goName)
		}
		w("\t\t}\n\t}")
		if f.def != nil {
			w(" else if !d.has(%s) {\n\t\tout.%s = %v\n\t}", path, f.goName, *f.def)
		}
		w("\n")
	}
	w("\tif err := d.finish(out.Validate()); err != nil {\n\t\treturn %s{}, err\n\t}\n\treturn out, nil\n}\n\n", s.name)
}

func genFieldCheck(out *strings.Builder, f *field) {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	name := strconv.Quote(f.json)
	val := "p." + f.goName
	if pointer(f) {
		val = "(*p." + f.goName + ")"
	}
	if f.required && !f.nullable {
		switch f.kind {
		case "uuid":
			w("\t\tif %s == uuid.Nil {\n\t\t\tv.add(%s, \"is required\")\n\t\t}\n", val, name)
		case "datetime":
			w("\t\tif %s.IsZero() {\n\t\t\tv.add(%s, \"is required\")\n\t\t}\n", val, name)
		case "object":
			w("\t\tif len(%s) == 0 {\n\t\t\tv.add(%s, \"is required\")\n\t\t}\n", val, name)
		}
	}
	if f.kind == "enum" {
		w("\t\tv.enum(%s, %s.Valid(), %s.allowed())\n", name, val, val)
	}
	if f.maxLength != nil {
		w("\t\tv.maxLength(%s, %s, %d)\n", name, val, *f.maxLength)
	}
	if f.maxItems != nil {
		w("\t\tv.maxItems(%s, len(%s), %d)\n", name, val, *f.maxItems)
	}
	if f.kind == "array" && f.items.maxLength != nil {
		w("\t\tfor i, s := range %s {\n\t\t\tv.maxLength(indexed(%s, i), s, %d)\n\t\t}\n", val, name, *f.items.maxLength)
	}
	if f.kind == "array" && f.items.kind == "uuid" {
		w("\t\tfor i, id := range %s {\n\t\t\tif id == uuid.Nil {\n\t\t\t\tv.add(indexed(%s, i), \"must not be the nil uuid\")\n\t\t\t}\n\t\t}\n", val, name)
	}
	if f.min != nil {
		w("\t\tv.min(%s, float64(%s), %s)\n", name, val, fnum(f.min))
	}
	if f.max != nil {
		w("\t\tv.max(%s, float64(%s), %s)\n", name, val, fnum(f.max))
	}
	if b.Len() == 0 {
		return
	}
	if pointer(f) {
		fmt.Fprintf(out, "\tif p.%s != nil {\n%s\t}\n", f.goName, b.String())
	} else {
		out.WriteString(b.String())
	}
}

// ---- helpers ----

func doc(first, description string) string {
	lines := []string{"// " + first}
	if description != "" {
		lines = append(lines, "//")
		for _, l := range strings.Split(strings.TrimSpace(description), "\n") {
			lines = append(lines, strings.TrimRight("// "+l, " "))
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var initialisms = map[string]string{"id": "ID", "ids": "IDs", "url": "URL", "api": "API", "ai": "AI", "sso": "SSO", "json": "JSON", "http": "HTTP"}

// pascal turns snake_case, dotted or kebab names into Go identifiers with the usual initialisms.
func pascal(s string) string {
	var out strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if up, ok := initialisms[strings.ToLower(part)]; ok && part == strings.ToLower(part) {
			out.WriteString(up)
			continue
		}
		out.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return out.String()
}

func m(v any) node {
	if n, ok := v.(node); ok {
		return n
	}
	return node{}
}

func list(v any) []any { l, _ := v.([]any); return l }

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func num(v any) *float64 {
	switch n := v.(type) {
	case int:
		f := float64(n)
		return &f
	case float64:
		return &n
	}
	return nil
}

func fnum(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// types returns the non-null type of a schema and whether null is allowed.
func types(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, false
	case []any:
		var typ string
		nullable := false
		for _, x := range t {
			if str(x) == "null" {
				nullable = true
			} else {
				typ = str(x)
			}
		}
		return typ, nullable
	}
	return "", false
}

func refName(ref string) string { return strings.TrimPrefix(ref, "#/components/schemas/") }

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// propertyOrder holds the properties of each component schema in document order.
var propertyOrder map[string][]string

// child returns the value node of key in a mapping node ("" with a document node: its root).
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if key == "" {
		return n
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// orderedKeys returns the properties of schema name in the order the document states them.
func orderedKeys(name string, props node) []string {
	keys := slices.Clone(propertyOrder[name])
	for _, k := range sortedKeys(props) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}
