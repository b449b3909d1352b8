package httpx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/videotpl/platform/pkg/errs"
)

// maxFieldProblems bounds errors[] of a problem: a body with thousands of invalid items gets
// the first ones and a detail saying how many more were found.
const maxFieldProblems = 20

// capFields keeps the first maxFieldProblems of fields (dropping repeats) and says how many
// more there were.
func capFields(fields []errs.FieldError) (kept []errs.FieldError, more int) {
	seen := map[errs.FieldError]bool{}
	for _, f := range fields {
		if seen[f] {
			continue
		}
		seen[f] = true
		if len(kept) == maxFieldProblems {
			more++
			continue
		}
		kept = append(kept, f)
	}
	return kept, more
}

// formatMessages say what a format means to the reader of an error.
var formatMessages = map[string]string{
	"uuid":      "must be a UUID",
	"date-time": "must be an RFC 3339 date-time",
	"date":      "must be a date (YYYY-MM-DD)",
	"email":     "must be an email address",
	"uri":       "must be an absolute URI",
	"byte":      "must be base64-encoded",
}

// shortPattern is the longest pattern quoted in an error as written; a longer one is described.
const shortPattern = 40

// schemaMessage words one schema failure for the caller: what the value must be, never the
// validator's internals (a long regular expression, a parse error of a library).
func schemaMessage(se *openapi3.SchemaError) string {
	s := se.Schema
	if s == nil {
		s = &openapi3.Schema{}
	}
	switch se.SchemaField {
	case "format":
		if m, ok := formatMessages[s.Format]; ok {
			return m
		}
		return fmt.Sprintf("must be in the %s format", s.Format)
	case "pattern":
		return "must match " + patternDescription(s)
	case "maxLength":
		if s.MaxLength != nil {
			return fmt.Sprintf("must be at most %d characters", *s.MaxLength)
		}
	case "minLength":
		if s.MinLength == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters", s.MinLength)
	case "maxItems":
		if s.MaxItems != nil {
			return fmt.Sprintf("must have at most %d items", *s.MaxItems)
		}
	case "minItems":
		return fmt.Sprintf("must have at least %d items", s.MinItems)
	case "maximum":
		if s.Max != nil {
			return "must be at most " + strconv.FormatFloat(*s.Max, 'f', -1, 64)
		}
	case "minimum":
		if s.Min != nil {
			return "must be at least " + strconv.FormatFloat(*s.Min, 'f', -1, 64)
		}
	case "enum":
		vals := make([]string, 0, len(s.Enum))
		for _, v := range s.Enum {
			vals = append(vals, fmt.Sprint(v))
		}
		return "must be one of " + strings.Join(vals, ", ")
	case "required":
		return "is required"
	case "type":
		if s.Type != nil && len(s.Type.Slice()) == 1 {
			return "must be " + article(s.Type.Slice()[0])
		}
	case "nullable":
		return "must not be null"
	case "uniqueItems":
		return "must not repeat an item"
	}
	if se.Reason != "" {
		return se.Reason
	}
	return fmt.Sprintf("does not match the schema (%s)", se.SchemaField)
}

// patternDescription names what a pattern accepts: the schema's x-pattern-description, the
// pattern itself when short, the schema's description when short, or a pointer to the spec.
func patternDescription(s *openapi3.Schema) string {
	if d, ok := s.Extensions["x-pattern-description"].(string); ok && d != "" {
		return d
	}
	if len(s.Pattern) <= shortPattern {
		return s.Pattern
	}
	if d := strings.TrimSpace(s.Description); d != "" && len(d) <= 80 && !strings.Contains(d, "\n") {
		return strings.TrimSuffix(d, ".")
	}
	return "the pattern the API reference gives for this field"
}

// unknownProperty is the property a schema with additionalProperties: false refused, read
// from the validator's reason (`property "unknown_property_x" is unsupported`).
func unknownProperty(se *openapi3.SchemaError) (string, bool) {
	if se.SchemaField != "properties" && se.SchemaField != "additionalProperties" {
		return "", false
	}
	quoted, ok := strings.CutPrefix(se.Reason, "property ")
	if !ok {
		return "", false
	}
	quoted, ok = strings.CutSuffix(quoted, " is unsupported")
	if !ok {
		return "", false
	}
	name, err := strconv.Unquote(quoted)
	return name, err == nil
}
