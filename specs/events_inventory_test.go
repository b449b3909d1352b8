package specs

import (
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
	"gopkg.in/yaml.v3"
)

// The event catalogue (seed 001) parsed: envelope, step enumeration, events and transport.

type seedEventField struct {
	name     string
	typ      string // uuid, date-time, int64, integer, number, boolean, string, enum, array of ...
	enum     []string
	min, max *float64
	nullable bool
	required bool
	def      string // "" when the seed states no default
	constant string // a constant value the seed states (the envelope's producer)
}

type seedEvent struct {
	name       string
	fields     []seedEventField
	routingKey string // stated routing key template, "" when it is the event name
}

type seedCatalogue struct {
	envelope         []seedEventField
	producerConst    string
	steps            []string
	events           []seedEvent
	eventsExchange   string // name of the shared exchange
	eventsKind       string // its type (topic)
	progressExchange string
	progressKind     string
	progressAuto     bool
	progressEvent    string
}

var (
	reEventHeading   = regexp.MustCompile(`^\*\*([a-z0-9_.]+\.v[0-9]+)\*\*`)
	reFieldLine      = regexp.MustCompile(`^- (req|optional|optional, nullable): (.+)$`)
	reRoutingKeyLine = regexp.MustCompile(`^- routing key: (\S+)$`)
	reEnvelopeRow    = regexp.MustCompile(`^\| ([a-z_]+) \| ([^|]+) \| (yes|no) \|$`)
	reSteps          = regexp.MustCompile(`step enumeration .* has these (\d+) values: ([^.]+)\.`)
	reRange          = regexp.MustCompile(`^(-?\d+) to (-?\d+)$`)
	reShared         = regexp.MustCompile(`go to the shared (\w+) (\w+) exchange`)
	reDedicated      = regexp.MustCompile(`\*\*([a-z0-9_.]+)\*\* \([^)]*sent on a dedicated (auto-delete )?(\w+) exchange named ([a-z0-9_.]+)`)
	reConstant       = regexp.MustCompile(`constant ([a-z-]+)`)
)

// splitTop splits s at sep outside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// parseSeedField reads "name (type, qualifiers...)".
func parseSeedField(item string, steps []string) (seedEventField, error) {
	open := strings.Index(item, " (")
	if open < 0 || !strings.HasSuffix(item, ")") {
		return seedEventField{}, fmt.Errorf("field %q: want name (description)", item)
	}
	f := seedEventField{name: item[:open]}
	desc := item[open+2 : len(item)-1]
	if rest, ok := strings.CutPrefix(desc, "one of "); ok {
		f.typ = "enum"
		for _, v := range strings.Split(rest, ",") {
			f.enum = append(f.enum, strings.TrimSpace(v))
		}
		return f, nil
	}
	if desc == "step enumeration" {
		f.typ, f.enum = "enum", steps
		return f, nil
	}
	parts := strings.Split(desc, ", ")
	f.typ = parts[0]
	switch f.typ {
	case "uuid", "date-time", "int64", "integer", "number", "boolean", "string", "array of uuid", "array of string":
	default:
		return f, fmt.Errorf("field %s: unknown type %q", f.name, f.typ)
	}
	for _, q := range parts[1:] {
		switch {
		case q == "nullable":
			f.nullable = true
		case reRange.MatchString(q):
			m := reRange.FindStringSubmatch(q)
			lo, _ := strconv.ParseFloat(m[1], 64)
			hi, _ := strconv.ParseFloat(m[2], 64)
			f.min, f.max = &lo, &hi
		case strings.HasPrefix(q, "default "):
			f.def = strings.TrimPrefix(q, "default ")
		}
	}
	return f, nil
}

func parseSeedCatalogue(text string) (seedCatalogue, error) {
	var c seedCatalogue
	flat := strings.Join(strings.Fields(text), " ")
	if m := reSteps.FindStringSubmatch(flat); m != nil {
		for _, v := range strings.Split(m[2], ",") {
			c.steps = append(c.steps, strings.TrimSpace(v))
		}
		if n, _ := strconv.Atoi(m[1]); n != len(c.steps) {
			return c, fmt.Errorf("step enumeration: seed says %d values, lists %d", n, len(c.steps))
		}
	}
	if m := reShared.FindStringSubmatch(flat); m != nil {
		c.eventsKind, c.eventsExchange = m[1], m[2]
	}
	if m := reDedicated.FindStringSubmatch(flat); m != nil {
		c.progressEvent, c.progressAuto, c.progressKind, c.progressExchange = m[1], m[2] != "", m[3], m[4]
	}
	var cur *seedEvent
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := reEnvelopeRow.FindStringSubmatch(line); m != nil {
			f := seedEventField{name: m[1], required: m[3] == "yes"}
			typ := strings.TrimSpace(m[2])
			f.typ = strings.SplitN(strings.SplitN(typ, " (", 2)[0], ",", 2)[0]
			if cm := reConstant.FindStringSubmatch(typ); cm != nil {
				c.producerConst, f.constant = cm[1], cm[1]
			}
			c.envelope = append(c.envelope, f)
			continue
		}
		if m := reEventHeading.FindStringSubmatch(line); m != nil {
			c.events = append(c.events, seedEvent{name: m[1]})
			cur = &c.events[len(c.events)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := reRoutingKeyLine.FindStringSubmatch(line); m != nil {
			cur.routingKey = m[1]
			continue
		}
		m := reFieldLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, item := range splitTop(m[2], ',') {
			f, err := parseSeedField(item, c.steps)
			if err != nil {
				return c, fmt.Errorf("%s: %w", cur.name, err)
			}
			f.required = m[1] == "req"
			if m[1] == "optional, nullable" {
				f.nullable = true
			}
			cur.fields = append(cur.fields, f)
		}
	}
	return c, nil
}

// The AsyncAPI document, generically.

type amap = map[string]any

func get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(amap)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func sget(v any, path ...string) string { s, _ := get(v, path...).(string); return s }

// resolve follows a local $ref.
func resolve(doc amap, v any) any {
	for range 5 {
		ref := sget(v, "$ref")
		if ref == "" {
			return v
		}
		v = get(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
	return v
}

// schemaType returns the non-null type of a schema and whether null is allowed.
func schemaType(s any) (string, bool) {
	nullable := get(s, "nullable") == true
	switch t := get(s, "type").(type) {
	case string:
		return t, nullable
	case []any:
		typ := ""
		for _, x := range t {
			if x == "null" {
				nullable = true
			} else {
				typ, _ = x.(string)
			}
		}
		return typ, nullable
	}
	return "", nullable
}

func stringList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// checkFieldType compares a property schema with the seed's type statement.
func checkFieldType(doc amap, where string, f seedEventField, prop any) []string {
	var problems []string
	s := resolve(doc, prop)
	typ, nullable := schemaType(s)
	format := sget(s, "format")
	want := map[string][2]string{
		"uuid": {"string", "uuid"}, "date-time": {"string", "date-time"}, "int64": {"integer", "int64"},
		"integer": {"integer", ""}, "number": {"number", ""}, "boolean": {"boolean", ""}, "string": {"string", ""},
		"enum": {"string", ""}, "array of uuid": {"array", ""}, "array of string": {"array", ""}, "object": {"object", ""},
	}[f.typ]
	if typ != want[0] || format != want[1] {
		problems = append(problems, fmt.Sprintf("%s: type %s/%s, seed says %s", where, typ, format, f.typ))
	}
	if item, ok := strings.CutPrefix(f.typ, "array of "); ok {
		it := resolve(doc, get(s, "items"))
		ityp, _ := schemaType(it)
		iformat := sget(it, "format")
		if item == "uuid" && (ityp != "string" || iformat != "uuid") || item == "string" && (ityp != "string" || iformat != "") {
			problems = append(problems, fmt.Sprintf("%s: items %s/%s, seed says %s", where, ityp, iformat, item))
		}
	}
	if nullable != f.nullable {
		problems = append(problems, fmt.Sprintf("%s: nullable %v, seed says %v", where, nullable, f.nullable))
	}
	got := stringList(get(s, "enum"))
	if f.typ == "enum" && !slices.Equal(got, f.enum) {
		problems = append(problems, fmt.Sprintf("%s: enum %v, seed says %v", where, got, f.enum))
	}
	switch {
	case f.constant != "" && !slices.Contains(got, f.constant):
		problems = append(problems, fmt.Sprintf("%s: enum %v lacks the seed's constant %s", where, got, f.constant))
	case f.typ != "enum" && f.constant == "" && got != nil:
		problems = append(problems, fmt.Sprintf("%s: enum %v where the seed states none", where, got))
	}
	for _, b := range []struct {
		key  string
		want *float64
	}{{"minimum", f.min}, {"maximum", f.max}} {
		gotB, has := number(get(s, b.key))
		switch {
		case b.want == nil && has:
			problems = append(problems, fmt.Sprintf("%s: %s %v where the seed states no range", where, b.key, gotB))
		case b.want != nil && (!has || gotB != *b.want):
			problems = append(problems, fmt.Sprintf("%s: %s %v, seed says %v", where, b.key, get(s, b.key), *b.want))
		}
	}
	if gotDef := get(s, "default"); f.def != "" && fmt.Sprint(gotDef) != f.def || f.def == "" && gotDef != nil {
		problems = append(problems, fmt.Sprintf("%s: default %v, seed says %q", where, gotDef, f.def))
	}
	return problems
}

func checkObject(doc amap, where string, fields []seedEventField, schema any) []string {
	var problems []string
	required := stringList(get(schema, "required"))
	props, _ := get(schema, "properties").(amap)
	for _, f := range fields {
		at := where + "." + f.name
		prop, ok := props[f.name]
		if !ok {
			problems = append(problems, at+": missing")
			continue
		}
		if slices.Contains(required, f.name) != f.required {
			problems = append(problems, fmt.Sprintf("%s: required %v, seed says %v", at, !f.required, f.required))
		}
		problems = append(problems, checkFieldType(doc, at, f, prop)...)
	}
	return problems
}

// checkEventsDocument reports every difference between the seed catalogue and the document.
func checkEventsDocument(c seedCatalogue, doc amap) []string {
	var problems []string
	messages, _ := get(doc, "components", "messages").(amap)
	byName := map[string]string{}
	for key, m := range messages {
		byName[sget(m, "name")] = key
	}
	// Channels: where each message is published, and the exchanges.
	channelOf := map[string]amap{}
	channels, _ := get(doc, "channels").(amap)
	for _, ch := range channels {
		msgs, _ := get(ch, "messages").(amap)
		for _, m := range msgs {
			key := strings.TrimPrefix(sget(m, "$ref"), "#/components/messages/")
			if prev, dup := channelOf[key]; dup && !mapsEqual(prev, ch.(amap)) {
				problems = append(problems, "message "+key+" is on two channels")
			}
			channelOf[key] = ch.(amap)
		}
	}
	exchange := func(ch amap) (string, string, bool) {
		ex := get(ch, "bindings", "amqp", "exchange")
		return sget(ex, "name"), sget(ex, "type"), get(ex, "autoDelete") == true
	}

	for _, ev := range c.events {
		key, ok := byName[ev.name]
		if !ok {
			problems = append(problems, "event "+ev.name+": no message")
			continue
		}
		msg := messages[key]
		all, _ := get(msg, "payload", "allOf").([]any)
		if len(all) != 2 {
			problems = append(problems, ev.name+": payload is not allOf [envelope, overrides]")
			continue
		}
		env := resolve(doc, all[0])
		problems = append(problems, checkObject(doc, ev.name+" envelope", c.envelope, env)...)
		if got := sget(all[1], "properties", "event_type", "const"); got != ev.name {
			problems = append(problems, fmt.Sprintf("%s: event_type const %q", ev.name, got))
		}
		if strings.HasPrefix(ev.name, "render.") {
			if got := sget(all[1], "properties", "producer", "const"); got != c.producerConst {
				problems = append(problems, fmt.Sprintf("%s: producer const %q, seed says %q", ev.name, got, c.producerConst))
			}
		}
		data := resolve(doc, get(all[1], "properties", "data"))
		if data == nil {
			problems = append(problems, ev.name+": data has no schema")
			continue
		}
		problems = append(problems, checkObject(doc, ev.name, ev.fields, data)...)

		ch := channelOf[key]
		if ch == nil {
			problems = append(problems, ev.name+": on no channel")
			continue
		}
		name, kind, auto := exchange(ch)
		if ev.name == c.progressEvent {
			if name != c.progressExchange || kind != c.progressKind || auto != c.progressAuto {
				problems = append(problems, fmt.Sprintf("%s: exchange %s (%s, auto-delete %v), seed says %s (%s, auto-delete %v)", ev.name, name, kind, auto, c.progressExchange, c.progressKind, c.progressAuto))
			}
			if got := sget(ch, "address"); got != ev.routingKey {
				problems = append(problems, fmt.Sprintf("%s: routing key %q, seed says %q", ev.name, got, ev.routingKey))
			}
			for _, p := range regexp.MustCompile(`\{(\w+)\}`).FindAllStringSubmatch(ev.routingKey, -1) {
				if get(ch, "parameters", p[1]) == nil {
					problems = append(problems, ev.name+": channel parameter "+p[1]+" missing")
				}
			}
			continue
		}
		if name != c.eventsExchange || kind != c.eventsKind || get(ch, "bindings", "amqp", "exchange", "durable") != true {
			problems = append(problems, fmt.Sprintf("%s: exchange %s (%s), seed says durable %s (%s)", ev.name, name, kind, c.eventsExchange, c.eventsKind))
		}
		// Routing key = event name: the address is one parameter located at the envelope's event_type.
		addr := sget(ch, "address")
		param := strings.Trim(addr, "{}")
		if !strings.HasPrefix(addr, "{") || sget(ch, "parameters", param, "location") != "$message.payload#/event_type" ||
			!slices.Contains(stringList(get(ch, "parameters", param, "enum")), ev.name) {
			problems = append(problems, fmt.Sprintf("%s: routing key is not the event name (address %q)", ev.name, addr))
		}
	}
	// No invented render or identity events.
	for name := range byName {
		if (strings.HasPrefix(name, "render.") || strings.HasPrefix(name, "identity.")) &&
			!slices.ContainsFunc(c.events, func(e seedEvent) bool { return e.name == name }) {
			problems = append(problems, "message "+name+" is not in the seed")
		}
	}
	sort.Strings(problems)
	return problems
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func mapsEqual(a, b amap) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func loadEventsInventory(t *testing.T) (seedCatalogue, []byte) {
	t.Helper()
	dir := seedsDir(t)
	matches, _ := filepath.Glob(filepath.Join(dir, "001_*.txt"))
	if len(matches) != 1 {
		t.Fatalf("want one seed 001 in %s, found %v", dir, matches)
	}
	text, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseSeedCatalogue(string(text))
	if err != nil {
		t.Fatal(err)
	}
	// The parser must have understood the seed, or the comparison proves nothing.
	if len(c.events) < 20 || len(c.steps) != 16 || len(c.envelope) != 9 || c.producerConst == "" ||
		c.eventsExchange == "" || c.progressExchange == "" || c.progressEvent == "" {
		t.Fatalf("seed 001 not understood: %d events, %d steps, %d envelope fields, producer %q, exchanges %q/%q, progress %q",
			len(c.events), len(c.steps), len(c.envelope), c.producerConst, c.eventsExchange, c.progressExchange, c.progressEvent)
	}
	for _, ev := range c.events {
		if len(ev.fields) == 0 {
			t.Fatalf("seed 001: no fields parsed for %s", ev.name)
		}
	}
	spec, err := os.ReadFile(specPath("asyncapi/events.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c, spec
}

func parseDoc(t *testing.T, b []byte) amap {
	t.Helper()
	var doc amap
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if sget(doc, "asyncapi") != "3.0.0" {
		t.Fatalf("asyncapi version %q, want 3.0.0", sget(doc, "asyncapi"))
	}
	return doc
}

func TestEventsDocumentStatesEverySeedEventFieldAndTransport(t *testing.T) {
	c, spec := loadEventsInventory(t)
	for _, p := range checkEventsDocument(c, parseDoc(t, spec)) {
		t.Error(p)
	}
	n := 0
	for _, ev := range c.events {
		n += len(ev.fields)
	}
	t.Logf("checked %d events, %d payload fields, %d envelope fields, %d steps", len(c.events), n, len(c.envelope), len(c.steps))
}

func TestEventsInventoryCheckReportsWhatIsMissingOrDifferent(t *testing.T) {
	c, spec := loadEventsInventory(t)
	schemas := func(doc amap) amap { return get(doc, "components", "schemas").(amap) }
	cases := []struct {
		name   string
		mutate func(doc amap)
		want   string
	}{
		{"a removed payload field", func(doc amap) {
			delete(get(schemas(doc), "RenderJobProgressV1Payload", "properties").(amap), "progress")
		}, "render.job.progress.v1.progress: missing"},
		{"a dropped range", func(doc amap) {
			delete(get(schemas(doc), "RenderJobQueuedV1Payload", "properties", "priority_score").(amap), "maximum")
		}, "render.job.queued.v1.priority_score: maximum"},
		{"a required field made optional", func(doc amap) {
			s := schemas(doc)["IdentityApiKeyRevokedV1Payload"].(amap)
			s["required"] = []any{"api_key_id", "tenant_id", "revoked_by_user_id"}
		}, "identity.api_key.revoked.v1.reason: required false"},
		{"a missing enum value", func(doc amap) {
			s := schemas(doc)["Step"].(amap)
			s["enum"] = stringsToAny(stringList(s["enum"])[1:])
		}, "render.job.failed.v1.failed_at_step: enum"},
		{"a lost nullability", func(doc amap) {
			get(schemas(doc), "IdentityUserBannedV1Payload", "properties", "unblock_date").(amap)["type"] = "string"
		}, "identity.user.banned.v1.unblock_date: nullable false"},
		{"a wrong format", func(doc amap) {
			delete(get(schemas(doc), "RenderJobCompletedV1Payload", "properties", "size_bytes").(amap), "format")
		}, "render.job.completed.v1.size_bytes: type integer/, seed says int64"},
		{"a lost default", func(doc amap) {
			delete(get(schemas(doc), "RenderJobCancelledV1Payload", "properties", "refund_required").(amap), "default")
		}, "render.job.cancelled.v1.refund_required: default"},
		{"a removed envelope field", func(doc amap) {
			delete(get(schemas(doc), "EventEnvelope", "properties").(amap), "trace_id")
		}, "envelope.trace_id: missing"},
		{"progress moved to the events exchange", func(doc amap) {
			get(doc, "channels", "render.progress", "bindings", "amqp", "exchange").(amap)["name"] = "events"
		}, "render.job.progress.v1: exchange events"},
		{"a removed message", func(doc amap) {
			delete(get(doc, "components", "messages").(amap), "IdentityPlanExpiredV1")
		}, "event identity.plan.expired.v1: no message"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is reported", func(t *testing.T) {
			doc := parseDoc(t, spec)
			tc.mutate(doc)
			problems := checkEventsDocument(c, doc)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("want a problem containing %q, got %v", tc.want, problems)
			}
		})
	}
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func TestSeedFieldListsAreParsedWithTheirQualifiers(t *testing.T) {
	steps := []string{"A", "B"}
	cases := []struct {
		item string
		want seedEventField
	}{
		{"priority_score (integer, 0 to 100)", seedEventField{name: "priority_score", typ: "integer", min: ptr(0.0), max: ptr(100.0)}},
		{"priority_queue (one of snapshot, vip)", seedEventField{name: "priority_queue", typ: "enum", enum: []string{"snapshot", "vip"}}},
		{"step (step enumeration)", seedEventField{name: "step", typ: "enum", enum: steps}},
		{"thumbnail_url (string, nullable)", seedEventField{name: "thumbnail_url", typ: "string", nullable: true}},
		{"refund_required (boolean, default true)", seedEventField{name: "refund_required", typ: "boolean", def: "true"}},
		{"preview_b64 (string, thumbnail of the last rendered frame, roughly 5 to 15 KB)", seedEventField{name: "preview_b64", typ: "string"}},
		{"node_ids (array of uuid)", seedEventField{name: "node_ids", typ: "array of uuid"}},
	}
	for _, tc := range cases {
		got, err := parseSeedField(tc.item, steps)
		if err != nil {
			t.Fatalf("%s: %v", tc.item, err)
		}
		if fmt.Sprint(deref(got)) != fmt.Sprint(deref(tc.want)) {
			t.Errorf("%s:\n got %v\nwant %v", tc.item, deref(got), deref(tc.want))
		}
	}
	if _, err := parseSeedField("x (quaternion)", steps); err == nil {
		t.Error("an unknown type is accepted")
	}
}

func ptr[T any](v T) *T { return &v }

// deref makes a field printable with its range values rather than pointers.
func deref(f seedEventField) string {
	r := ""
	if f.min != nil && f.max != nil {
		r = fmt.Sprintf("%v..%v", *f.min, *f.max)
	}
	return fmt.Sprintf("%s %s %v %s null=%v def=%s", f.name, f.typ, f.enum, r, f.nullable, f.def)
}

// The render-events API restates enumerations of the events; they must not drift apart.
func TestRenderEventsAPIRestatesTheEventEnumerationsExactly(t *testing.T) {
	spec, err := os.ReadFile(specPath("asyncapi/events.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	events := parseDoc(t, spec)
	loader := openapi3.NewLoader()
	api, err := loader.LoadFromFile(specPath("openapi/renderevents.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Validate(loader.Context); err != nil {
		t.Fatalf("renderevents.yaml is not valid OpenAPI: %v", err)
	}
	pairs := []struct{ api, events string }{{"Step", "Step"}, {"PriorityQueue", "PriorityQueue"}}
	for _, p := range pairs {
		var got []string
		for _, v := range api.Components.Schemas[p.api].Value.Enum {
			got = append(got, fmt.Sprint(v))
		}
		want := stringList(get(events, "components", "schemas", p.events, "enum"))
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("renderevents %s %v, events %s %v", p.api, got, p.events, want)
		}
	}
	var states []string
	for _, v := range api.Components.Schemas["JobState"].Value.Enum {
		states = append(states, fmt.Sprint(v))
	}
	if !slices.Equal(states, []string{"queued", "started", "completed", "failed", "cancelled"}) {
		t.Errorf("JobState %v", states)
	}
}
