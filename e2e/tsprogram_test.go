package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// requiredOnlyPreamble opens every program requiredOnlyProgram writes: RequiredKeys is true
// when every key K of T is required, and names the optional ones otherwise, so assigning true
// to it compiles only when the response type requires what the spec requires.
const requiredOnlyPreamble = `type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
type RequiredKeys<T, K extends keyof T> = [Extract<K, OptionalKeys<T>>] extends [never] ? true : Extract<K, OptionalKeys<T>>;
`

// requiredOnlyProgram writes a TypeScript module that calls every operation of doc through the
// SDK's client (type clientType of package pkg) with only what the spec requires: required
// path, query, header and cookie parameters, and a required request body holding only its
// required properties. It compiles only if everything else is optional in the SDK's types.
// Where the one 2xx answer is a JSON object, it also asserts that the properties the spec
// requires are required in the response type.
func requiredOnlyProgram(doc *openapi3.T, specPath, pkg, clientType string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Every operation of %s called with only what it requires (e2e/tsprogram_test.go).\n", specPath)
	fmt.Fprintf(&b, "import type { %s } from %q;\n\n%s", clientType, pkg, requiredOnlyPreamble)
	paths := doc.Paths.Map()
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item := paths[path]
		ops := item.Operations()
		for _, method := range slices.Sorted(maps.Keys(ops)) {
			op := ops[method]
			var init []string
			if params := requiredParams(append(slices.Clone(item.Parameters), op.Parameters...)); params != "" {
				init = append(init, "params: "+params)
			}
			if body := op.RequestBody; body != nil && body.Value != nil && body.Value.Required {
				init = append(init, "body: "+tsValue(requestMedia(body.Value.Content), 0))
			}
			call := fmt.Sprintf("api.%s(%q", method, path)
			if len(init) > 0 {
				call += ", { " + strings.Join(init, ", ") + " }"
			}
			call += ")"
			fmt.Fprintf(&b, "\nexport async function %s(api: %s): Promise<void> {\n", tsIdent(op.OperationID, method, path), clientType)
			keys := requiredResponseKeys(op)
			if len(keys) == 0 {
				fmt.Fprintf(&b, "  await %s;\n}\n", call)
				continue
			}
			quoted := make([]string, len(keys))
			for i, k := range keys {
				quoted[i] = jsonString(k)
			}
			fmt.Fprintf(&b, "  const { data } = await %s;\n", call)
			fmt.Fprintf(&b, "  if (data) {\n    const required: RequiredKeys<typeof data, %s> = true;\n    void required;\n  }\n}\n", strings.Join(quoted, " | "))
		}
	}
	return b.String()
}

// requiredParams is the openapi-fetch params object of the required parameters ("" if none).
func requiredParams(params openapi3.Parameters) string {
	byIn := map[string][]string{}
	for _, p := range params {
		if p == nil || p.Value == nil || !p.Value.Required {
			continue
		}
		byIn[p.Value.In] = append(byIn[p.Value.In], jsonString(p.Value.Name)+": "+tsValue(p.Value.Schema, 0))
	}
	if len(byIn) == 0 {
		return ""
	}
	var parts []string
	for _, in := range slices.Sorted(maps.Keys(byIn)) {
		parts = append(parts, in+": { "+strings.Join(byIn[in], ", ")+" }")
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// requestMedia is the schema of the JSON body when the operation takes one, else of the first
// media type: openapi-fetch accepts any of them as the body.
func requestMedia(content openapi3.Content) *openapi3.SchemaRef {
	if mt := content.Get("application/json"); mt != nil {
		return mt.Schema
	}
	for _, name := range slices.Sorted(maps.Keys(content)) {
		return content[name].Schema
	}
	return nil
}

// requiredResponseKeys are the required properties of the operation's one 2xx JSON object
// answer; none when it has several 2xx answers (openapi-fetch's data is then their union).
func requiredResponseKeys(op *openapi3.Operation) []string {
	var schema *openapi3.SchemaRef
	for code, r := range op.Responses.Map() {
		if !strings.HasPrefix(code, "2") || r.Value == nil {
			continue
		}
		mt := r.Value.Content.Get("application/json")
		if mt == nil {
			continue
		}
		if schema != nil {
			return nil
		}
		schema = mt.Schema
	}
	if schema == nil || schema.Value == nil || len(schema.Value.OneOf)+len(schema.Value.AnyOf) > 0 {
		return nil
	}
	required, _ := objectFields(schema.Value)
	slices.Sort(required)
	return slices.Compact(required)
}

// objectFields are the required property names and the properties of an object schema,
// allOf members merged in.
func objectFields(s *openapi3.Schema) ([]string, openapi3.Schemas) {
	required := slices.Clone(s.Required)
	props := openapi3.Schemas{}
	maps.Copy(props, s.Properties)
	for _, sub := range s.AllOf {
		if sub.Value == nil {
			continue
		}
		r, p := objectFields(sub.Value)
		required = append(required, r...)
		maps.Copy(props, p)
	}
	return required, props
}

// tsValue is a TypeScript literal of the schema's type holding only required properties.
func tsValue(ref *openapi3.SchemaRef, depth int) string {
	if ref == nil || ref.Value == nil || depth > 16 {
		return "{}"
	}
	s := ref.Value
	switch {
	case len(s.Enum) > 0:
		raw, _ := json.Marshal(s.Enum[0])
		return string(raw)
	case len(s.OneOf) > 0:
		return tsValue(s.OneOf[0], depth+1)
	case len(s.AnyOf) > 0:
		return tsValue(s.AnyOf[0], depth+1)
	case s.Type.Is("string"):
		return `"x"`
	case s.Type.Is("integer"), s.Type.Is("number"):
		return "1"
	case s.Type.Is("boolean"):
		return "false"
	case s.Type.Is("array"):
		return "[]"
	}
	required, props := objectFields(s)
	var fields []string
	for _, name := range slices.Compact(slices.Sorted(slices.Values(required))) {
		p := props[name]
		if p != nil && p.Value != nil && p.Value.ReadOnly {
			continue // the client never sends it
		}
		fields = append(fields, jsonString(name)+": "+tsValue(p, depth+1))
	}
	if len(fields) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(fields, ", ") + " }"
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// tsIdent is a function name for the operation: its operationId, or method and path.
func tsIdent(operationID, method, path string) string {
	name := operationID
	if name == "" {
		name = strings.ToLower(method) + "_" + path
	}
	return "call_" + nonIdent.ReplaceAllString(name, "_")
}

func jsonString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}
