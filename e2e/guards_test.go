package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// The guarded input classes and what the 400 says about the field.
const (
	msgNUL      = "must not contain a NUL character"
	msgUTF8     = "must be valid UTF-8"
	msgTrailing = "unexpected data after the JSON document"
	msgUnknown  = "is not a known property"
	// invalidUTF8 stands in for a JSON string value until the body is encoded; it becomes
	// bytes that are not UTF-8 (json.Marshal would repair them).
	invalidUTF8 = "\x01invalid-utf8\x01"
)

// wrongFormat is a value of each checked format that is not of it, and what the 400 says.
var wrongFormat = map[string][2]string{
	"uuid":      {"not-a-uuid", "must be a UUID"},
	"date-time": {"yesterday", "must be an RFC 3339 date-time"},
}

// TestEveryOperationAnswersGuardedInputWithA400NamingTheField walks every operation of the
// three specs against one running instance of each service and sends, with credentials the
// operation accepts, each guarded input class that applies to it: NUL and invalid UTF-8 in path
// and query parameters and in every string of a JSON body (and in multipart text fields), an
// over-long string where the schema has maxLength, data after the JSON document, a wrong uuid
// or date-time, and an unknown property where the schema says additionalProperties: false.
// Each answer must be a 400 problem whose errors[] names the field; the service must be healthy
// after each operation. Requests are built from the spec alone, so properties, bounds and
// operations added to a spec are walked without touching this test. Not sent: a NUL in a
// header (net/http refuses control characters in header values on both sides, before any
// handler), classes inside oneOf/anyOf alternatives other than the text guards (the validator
// names the alternative's parent there).
func TestEveryOperationAnswersGuardedInputWithA400NamingTheField(t *testing.T) {
	specs := map[string]*openapi3.T{}
	for name, load := range map[string]func() (*openapi3.T, error){
		"content": contentserver.GetSpec, "orgboard": orgboardserver.GetSpec, "renderevents": rendereventsserver.GetSpec,
	} {
		spec, err := load()
		if err != nil {
			t.Fatal(err)
		}
		specs[name] = spec
	}
	// Tokens carrying every scope a requirement names; the issuer's Env lists the service token.
	var scopes []string
	for _, spec := range specs {
		for _, item := range spec.Paths.Map() {
			for _, op := range item.Operations() {
				for _, req := range requirementsOf(spec, op) {
					for _, s := range req {
						scopes = append(scopes, s...)
					}
				}
			}
		}
	}
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	issuer := authtest.New(t)
	w := &walker{
		jwt:     issuer.Token(t, authtest.Subject(uuid.New()), authtest.Tenant(uuid.New()), authtest.Roles(append([]string{"admin", "platform-admin"}, scopes...)...)),
		service: issuer.ServiceToken(t, "guards-walk", scopes...),
		client:  &http.Client{Timeout: 30 * time.Second},
	}
	bases := guardServers(t, issuer)

	for _, name := range slices.Sorted(mapKeys(specs)) {
		spec, base := specs[name], bases[name]
		prefix := ""
		if len(spec.Servers) > 0 {
			prefix = serverPathOf(spec.Servers[0].URL)
		}
		for _, path := range spec.Paths.InMatchingOrder() {
			item := spec.Paths.Value(path)
			for _, method := range slices.Sorted(mapKeys(item.Operations())) {
				op := item.GetOperation(method)
				t.Run(name+" "+method+" "+path, func(t *testing.T) {
					w.walk(t, spec, base, prefix+path, method, item, op)
					w.healthy(t, base)
				})
			}
		}
	}
}

// guardServers starts one instance of each service binary on a fresh database, its own queues
// and buckets, verifying issuer's tokens, and returns their base URLs once ready.
func guardServers(t *testing.T, issuer *authtest.Issuer) map[string]string {
	t.Helper()
	s3 := os.Getenv("S3_TEST_ENDPOINT")
	if s3 == "" {
		t.Fatal("S3_TEST_ENDPOINT is not set: run the tests with `make test-only` (it starts MinIO)")
	}
	suffix := strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	contentBus, renderBus := bustest.Config(t), bustest.Config(t)
	common := append([]string{"LOG_LEVEL=warn", "AMQP_URL=" + bustest.URL(), "MIGRATE_ON_START=true", sealKeys}, issuer.Env()...)
	env := map[string][]string{
		"content": {"S3_ENDPOINT=" + s3, "S3_ACCESS_KEY=" + os.Getenv("S3_TEST_ACCESS_KEY"),
			"S3_SECRET_KEY=" + os.Getenv("S3_TEST_SECRET_KEY"), "S3_BUCKET_TEMPLATES=e2e-guards-t-" + suffix,
			"S3_BUCKET_MEDIA=e2e-guards-m-" + suffix, "BUS_SERVICE=" + contentBus.Service,
			"EVENTS_EXCHANGE=" + contentBus.EventsExchange, "DEAD_LETTER_EXCHANGE=" + contentBus.DeadLetterExchange},
		"renderevents": {"BUS_SERVICE=" + renderBus.Service, "EVENTS_EXCHANGE=" + renderBus.EventsExchange,
			"PROGRESS_EXCHANGE=" + renderBus.ProgressExchange, "DEAD_LETTER_EXCHANGE=" + renderBus.DeadLetterExchange},
	}
	bases := map[string]string{}
	procs := map[string]*process{}
	for _, s := range services {
		_, dbURL := pgtest.NewDB(t)
		addr := freeAddr(t)
		vars := append(slices.Clone(common), "DATABASE_URL="+dbURL, "HTTP_ADDR="+addr)
		procs[s.name] = startProcess(t, serviceBinary(t, s.name), append(vars, env[s.name]...), "serve")
		bases[s.name] = "http://" + addr
	}
	for name, p := range procs {
		waitReady(t, p, bases[name], time.Minute)
	}
	return bases
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// serverPathOf keeps the path of a server URL ("http://localhost:8081/v1" -> "/v1").
func serverPathOf(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		if i := strings.Index(rest, "/"); i >= 0 {
			return strings.TrimSuffix(rest[i:], "/")
		}
		return ""
	}
	return strings.TrimSuffix(u, "/")
}

// requirementsOf is the security of an operation (the spec's when it declares none).
func requirementsOf(spec *openapi3.T, op *openapi3.Operation) openapi3.SecurityRequirements {
	if op.Security != nil {
		return *op.Security
	}
	return spec.Security
}

type walker struct {
	jwt, service string
	client       *http.Client
}

// token is a credential the operation accepts: the user JWT where BearerAuth is a requirement,
// the service token otherwise; "" for a public operation.
func (w *walker) token(spec *openapi3.T, op *openapi3.Operation) string {
	reqs := requirementsOf(spec, op)
	if len(reqs) == 0 {
		return ""
	}
	for _, r := range reqs {
		if _, ok := r["BearerAuth"]; ok {
			return w.jwt
		}
	}
	return w.service
}

// probe is one request of a guarded class and the field its 400 must name.
type probe struct {
	class          string
	path, query    string // path with its parameters filled in (escaped); raw query
	header         http.Header
	contentType    string
	body           []byte
	field, message string
}

func (w *walker) walk(t *testing.T, spec *openapi3.T, base, path, method string, item *openapi3.PathItem, op *openapi3.Operation) {
	params := map[string]*openapi3.Parameter{}
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range list {
			if p.Value != nil {
				params[p.Value.In+"."+p.Value.Name] = p.Value
			}
		}
	}
	// The request every probe varies: path parameters valid (random ids: the guards answer
	// before any handler looks them up), required query parameters present.
	pathValues, query := map[string]string{}, []string{}
	for _, key := range slices.Sorted(mapKeys(params)) {
		p := params[key]
		switch {
		case p.In == openapi3.ParameterInPath:
			pathValues[p.Name] = sampleText(p.Schema)
		case p.In == openapi3.ParameterInQuery && p.Required:
			query = append(query, p.Name+"="+sampleText(p.Schema))
		}
	}
	fill := func(values map[string]string) string {
		out := path
		for name, v := range values {
			out = strings.ReplaceAll(out, "{"+name+"}", v)
		}
		return out
	}
	validPath := fill(pathValues)
	var probes []probe
	with := func(name, value string) string {
		v := map[string]string{}
		for k, x := range pathValues {
			v[k] = x
		}
		v[name] = value
		return fill(v)
	}
	for _, key := range slices.Sorted(mapKeys(params)) {
		p := params[key]
		field := p.In + "." + p.Name
		switch p.In {
		case openapi3.ParameterInPath:
			probes = append(probes,
				probe{class: "NUL in a path parameter", path: with(p.Name, "a%00b"), field: field, message: msgNUL},
				probe{class: "invalid UTF-8 in a path parameter", path: with(p.Name, "a%FFb"), field: field, message: msgUTF8})
			if f, ok := wrongFormat[formatOf(p.Schema)]; ok {
				probes = append(probes, probe{class: "a wrong " + formatOf(p.Schema) + " in a path parameter", path: with(p.Name, f[0]), field: field, message: f[1]})
			}
		case openapi3.ParameterInQuery:
			others := slices.DeleteFunc(slices.Clone(query), func(q string) bool { return strings.HasPrefix(q, p.Name+"=") })
			q := func(v string) string { return strings.Join(append(others, p.Name+"="+v), "&") }
			probes = append(probes,
				probe{class: "NUL in a query parameter", path: validPath, query: q("a%00b"), field: field, message: msgNUL},
				probe{class: "invalid UTF-8 in a query parameter", path: validPath, query: q("a%FFb"), field: field, message: msgUTF8})
			if f, ok := wrongFormat[formatOf(p.Schema)]; ok {
				probes = append(probes, probe{class: "a wrong " + formatOf(p.Schema) + " in a query parameter", path: validPath, query: q(f[0]), field: field, message: f[1]})
			}
		case openapi3.ParameterInHeader:
			probes = append(probes, probe{class: "invalid UTF-8 in a declared header", path: validPath,
				header: http.Header{p.Name: {"a\xffb"}}, field: field, message: msgUTF8})
		}
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		content := op.RequestBody.Value.Content
		if mt := content.Get("application/json"); mt != nil && mt.Schema != nil {
			probes = append(probes, jsonProbes(validPath, mt.Schema)...)
		}
		if mt := content.Get("multipart/form-data"); mt != nil && mt.Schema != nil {
			probes = append(probes, multipartProbes(validPath, mt.Schema)...)
		}
	}
	if len(probes) == 0 {
		t.Skip("no guarded input: no parameters, no JSON or multipart body")
	}
	tok := w.token(spec, op)
	classes := map[string]int{}
	for _, p := range probes {
		classes[p.class]++
	}
	t.Logf("%d probes: %v", len(probes), classes)
	for _, p := range probes {
		w.send(t, base, method, tok, strings.Join(query, "&"), p)
	}
}

// send makes the probe's request and checks the 400 names the field with the message.
func (w *walker) send(t *testing.T, base, method, token, query string, p probe) {
	t.Helper()
	if p.query != "" {
		query = p.query
	}
	u := base + p.path
	if query != "" {
		u += "?" + query
	}
	var body io.Reader
	if p.body != nil {
		body = bytes.NewReader(p.body)
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatalf("%s: %v", p.class, err)
	}
	for k, v := range p.header {
		req.Header[k] = v
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if p.contentType != "" {
		req.Header.Set("Content-Type", p.contentType)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		t.Errorf("%s (%s): %v", p.class, p.field, err)
		return
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var problem struct {
		Status int `json:"status"`
		Errors []struct{ Field, Message string }
	}
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(raw, &problem) != nil || problem.Status != http.StatusBadRequest {
		t.Errorf("%s (%s): status %d %s, want a 400 problem: %.400s", p.class, p.field, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
		return
	}
	for _, e := range problem.Errors {
		if e.Field == p.field && e.Message == p.message {
			return
		}
	}
	t.Errorf("%s: errors[] lacks {%q, %q}: %.400s", p.class, p.field, p.message, raw)
}

func (w *walker) healthy(t *testing.T, base string) {
	t.Helper()
	resp, err := w.client.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("the service is not healthy after the walk: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz answers %d after the walk", resp.StatusCode)
	}
}

// step is one step of a path into a JSON document: a property, or the first item of an array.
type step struct {
	key   string
	index bool
}

func fieldOf(steps []step) string {
	var b strings.Builder
	b.WriteString("body")
	for _, s := range steps {
		if s.index {
			b.WriteString(".0")
		} else {
			b.WriteString("." + s.key)
		}
	}
	return b.String()
}

// jsonProbes are the body probes of a JSON operation: data after the document, and for every
// string the schema reaches, NUL, invalid UTF-8, over-long and wrong-format values, and an
// unknown property in every object that refuses them.
func jsonProbes(path string, schema *openapi3.SchemaRef) []probe {
	baseline := sample(schema, 0)
	encode := func(doc any) []byte {
		b, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		q, _ := json.Marshal(invalidUTF8)
		return bytes.ReplaceAll(b, q, []byte("\"a\xffb\""))
	}
	body := func(c string, steps []step, v any, message string) probe {
		return probe{class: c, path: path, contentType: "application/json", body: encode(setAt(sample(schema, 0), steps, v)),
			field: fieldOf(steps), message: message}
	}
	probes := []probe{{class: "data after the JSON document", path: path, contentType: "application/json",
		body: append(encode(baseline), " {}"...), field: "body", message: msgTrailing}}
	visitSchema(schema, nil, false, 0, func(steps []step, s *openapi3.Schema, inAlternative bool) {
		switch {
		case s.Type.Is("string") && s.Format != "binary":
			probes = append(probes,
				body("NUL in a JSON string", steps, "a\u0000b", msgNUL),
				body("invalid UTF-8 in a JSON string", steps, invalidUTF8, msgUTF8))
			if inAlternative {
				return
			}
			if s.MaxLength != nil && *s.MaxLength < 1<<20 {
				probes = append(probes, body("an over-long string", steps, strings.Repeat("a", int(*s.MaxLength)+1),
					fmt.Sprintf("must be at most %d characters", *s.MaxLength)))
			}
			if f, ok := wrongFormat[s.Format]; ok {
				probes = append(probes, body("a wrong "+s.Format, steps, f[0], f[1]))
			}
		case isObject(s) && !inAlternative && s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has:
			unknown := append(slices.Clone(steps), step{key: "unknown_property_x"})
			probes = append(probes, body("an unknown property", unknown, "typo", msgUnknown))
		}
	})
	return probes
}

// multipartProbes send each text field of a multipart operation alone, with NUL, with invalid
// UTF-8 and over its maxLength, and a field a closed form schema does not name: the handler
// reading the parts must answer 400 naming the field.
func multipartProbes(path string, schema *openapi3.SchemaRef) []probe {
	type class struct{ class, name, value, message string }
	var classes []class
	s := merged(schema)
	for _, name := range slices.Sorted(mapKeys(s.Properties)) {
		p := s.Properties[name].Value
		if p == nil || p.Format == "binary" || (!p.Type.Is("string") && !p.Type.Is("boolean") && !p.Type.Is("integer")) {
			continue
		}
		classes = append(classes,
			class{"NUL in a multipart text field", name, "a\x00b", msgNUL},
			class{"invalid UTF-8 in a multipart text field", name, "a\xffb", msgUTF8})
		if p.Type.Is("string") && p.MaxLength != nil && *p.MaxLength < 4<<10 {
			classes = append(classes, class{"an over-long multipart text field", name,
				strings.Repeat("a", int(*p.MaxLength)+1), fmt.Sprintf("must be at most %d characters", *p.MaxLength)})
		}
	}
	if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
		classes = append(classes, class{"an unknown multipart field", "unknown_field_x", "typo", msgUnknown})
	}
	var probes []probe
	for _, c := range classes {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField(c.name, c.value)
		_ = mw.Close()
		probes = append(probes, probe{class: c.class, path: path, contentType: mw.FormDataContentType(),
			body: buf.Bytes(), field: "body." + c.name, message: c.message})
	}
	return probes
}

// merged is a schema with its allOf parts folded in and its first oneOf/anyOf alternative.
func merged(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil || ref.Value == nil {
		return &openapi3.Schema{}
	}
	s := ref.Value
	if len(s.AllOf) == 0 {
		return s
	}
	out := *s
	out.Properties = openapi3.Schemas{}
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	out.Required = slices.Clone(s.Required)
	for _, part := range s.AllOf {
		m := merged(part)
		for k, v := range m.Properties {
			out.Properties[k] = v
		}
		out.Required = append(out.Required, m.Required...)
		if out.Type == nil {
			out.Type = m.Type
		}
		if m.AdditionalProperties.Has != nil {
			out.AdditionalProperties = m.AdditionalProperties
		}
	}
	return &out
}

func isObject(s *openapi3.Schema) bool { return s.Type.Is("object") || len(s.Properties) > 0 }

// visitSchema calls fn for every schema a JSON document can reach (depth-bounded; arrays through
// their first item), telling whether it lies inside a oneOf/anyOf alternative.
func visitSchema(ref *openapi3.SchemaRef, steps []step, inAlternative bool, depth int, fn func([]step, *openapi3.Schema, bool)) {
	if ref == nil || ref.Value == nil || depth > 6 {
		return
	}
	s := merged(ref)
	if alts := append(slices.Clone(s.OneOf), s.AnyOf...); len(alts) > 0 {
		visitSchema(alts[0], steps, true, depth+1, fn)
		return
	}
	fn(steps, s, inAlternative)
	switch {
	case s.Type.Is("array"):
		visitSchema(s.Items, append(slices.Clone(steps), step{index: true}), inAlternative, depth+1, fn)
	case isObject(s):
		for _, name := range slices.Sorted(mapKeys(s.Properties)) {
			if p := s.Properties[name]; p.Value != nil && !p.Value.ReadOnly {
				visitSchema(p, append(slices.Clone(steps), step{key: name}), inAlternative, depth+1, fn)
			}
		}
	}
}

// sample is a small value of a schema: required properties only, one item per array that needs
// items. It need not pass every rule: a probe only needs its own field named.
func sample(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > 6 {
		return nil
	}
	s := merged(ref)
	if alts := append(slices.Clone(s.OneOf), s.AnyOf...); len(alts) > 0 {
		return sample(alts[0], depth+1)
	}
	switch {
	case s.Type.Is("string"):
		return sampleText(ref)
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return false
	case s.Type.Is("array"):
		items := []any{}
		for range s.MinItems {
			items = append(items, sample(s.Items, depth+1))
		}
		return items
	case isObject(s):
		obj := map[string]any{}
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil && p.Value != nil && !p.Value.ReadOnly {
				obj[name] = sample(p, depth+1)
			}
		}
		return obj
	}
	return nil
}

// sampleText is a valid text of a string schema (a path or query value, a JSON string).
func sampleText(ref *openapi3.SchemaRef) string {
	if ref == nil || ref.Value == nil {
		return "x"
	}
	s := ref.Value
	if len(s.Enum) > 0 {
		return fmt.Sprint(s.Enum[0])
	}
	switch {
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return fmt.Sprint(*s.Min)
		}
		return "1"
	case s.Type.Is("boolean"):
		return "false"
	}
	switch s.Format {
	case "uuid":
		return uuid.NewString()
	case "date-time":
		return time.Now().UTC().Format(time.RFC3339)
	case "date":
		return "2024-01-01"
	case "email":
		return "walker@example.com"
	case "uri":
		return "https://example.com/a"
	}
	return strings.Repeat("x", max(1, int(s.MinLength)))
}

func formatOf(ref *openapi3.SchemaRef) string {
	if ref == nil || ref.Value == nil {
		return ""
	}
	return ref.Value.Format
}

// setAt returns doc with the value at steps replaced by v, creating what is missing.
func setAt(doc any, steps []step, v any) any {
	if len(steps) == 0 {
		return v
	}
	s := steps[0]
	if s.index {
		arr, _ := doc.([]any)
		if len(arr) == 0 {
			arr = []any{nil}
		}
		arr[0] = setAt(arr[0], steps[1:], v)
		return arr
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	obj[s.key] = setAt(obj[s.key], steps[1:], v)
	return obj
}
