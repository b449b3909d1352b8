package httpx

import (
	"mime"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Body limits derived from the schema. A JSON body may be as large as its schema allows: each
// character a maxLength allows counts bytesPerChar bytes, which covers a character written as
// raw UTF-8 (at most 4 bytes) and one written as a \uXXXX escape (6 bytes; control characters
// must be escaped). A character outside the Basic Multilingual Plane written as an escaped
// surrogate pair takes 12 bytes, so a string written that way fits to half its maxLength.
const (
	bytesPerChar = 6
	// scalarBytes bounds a number, boolean or null, with the separator after it.
	scalarBytes = 32
	// formatBytes bounds a string with a format but no maxLength (uuid, date-time, date).
	formatBytes = 64
)

// operationLimits gives every operation with a JSON request body whose schema bounds its size
// the limit that schema allows, at least def and at most ceiling; overrides (by operationId)
// win. Parts without bounds (a string without maxLength, an array without maxItems) add
// nothing: they share the default limit.
func operationLimits(spec *openapi3.T, def, ceiling int64, overrides map[string]int64) (map[string]int64, error) {
	if err := knownOperations(spec, overrides); err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if l := derivedLimit(op, def, ceiling); l > def {
				out[op.OperationID] = l
			}
		}
	}
	for id, l := range overrides {
		out[id] = l
	}
	return out, nil
}

// derivedLimit is the body limit an operation's JSON request schema allows, within [def, ceiling].
func derivedLimit(op *openapi3.Operation, def, ceiling int64) int64 {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return def
	}
	var largest int64
	for ct, mt := range op.RequestBody.Value.Content {
		m, _, err := mime.ParseMediaType(ct)
		if err != nil || (m != "application/json" && !strings.HasSuffix(m, "+json")) || mt.Schema == nil {
			continue
		}
		largest = max(largest, schemaBytes(mt.Schema, map[*openapi3.Schema]bool{}))
	}
	if ceiling > 0 {
		largest = min(largest, ceiling)
	}
	return max(def, largest)
}

// schemaBytes is the largest JSON text of the bounded parts of a schema.
func schemaBytes(ref *openapi3.SchemaRef, visiting map[*openapi3.Schema]bool) int64 {
	if ref == nil || ref.Value == nil || visiting[ref.Value] {
		return 0 // recursive schemas add nothing beyond their first level
	}
	s := ref.Value
	visiting[s] = true
	defer delete(visiting, s)
	var n int64
	for _, sub := range s.AllOf {
		n += schemaBytes(sub, visiting)
	}
	for _, alts := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf} {
		var most int64
		for _, sub := range alts {
			most = max(most, schemaBytes(sub, visiting))
		}
		n += most
	}
	switch {
	case s.Type.Is("string"):
		switch {
		case s.MaxLength != nil:
			n += int64(*s.MaxLength)*bytesPerChar + 3
		case len(s.Enum) > 0:
			for _, v := range s.Enum {
				if str, ok := v.(string); ok {
					n = max(n, int64(len(str))*bytesPerChar+3)
				}
			}
		case s.Format != "":
			n += formatBytes
		}
	case s.Type.Is("array"):
		if s.MaxItems != nil {
			n += int64(*s.MaxItems)*(schemaBytes(s.Items, visiting)+1) + 2
		}
	case s.Type.Is("object") || len(s.Properties) > 0:
		n += 2
		for name, p := range s.Properties {
			n += int64(len(name))*bytesPerChar + 4 + schemaBytes(p, visiting)
		}
	default:
		n += scalarBytes
	}
	return n
}
