package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/videotpl/platform/pkg/errs"
)

// Text guards: PostgreSQL refuses NUL in text and every store expects valid UTF-8, so a value
// carrying either is the caller's mistake, answered with a 400 naming the field before any
// handler sees it.
const (
	msgNUL         = "must not contain a NUL character"
	msgUTF8        = "must be valid UTF-8"
	msgTrailing    = "unexpected data after the JSON document"
	msgUnknownProp = "is not a known property"
)

// textProblem is the reason a text value is refused, or "" when it is fine.
func textProblem(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return msgNUL
	}
	if !utf8.ValidString(s) {
		return msgUTF8
	}
	return ""
}

// CheckText refuses a text value holding a NUL character or invalid UTF-8 with a 400 naming
// field (e.g. "body.name"). Handlers that read multipart text fields themselves (the contract
// middleware leaves multipart bodies unread, so uploads stream) pass every such field through it.
func CheckText(field, value string) error {
	if msg := textProblem(value); msg != "" {
		return errs.InvalidFields(errs.Field(field, msg))
	}
	return nil
}

// CheckJSONText is CheckText for a JSON document a handler reads itself (a multipart field
// holding JSON): a string anywhere in it, written raw or escaped, with NUL or invalid UTF-8 is
// a 400 naming its path under field ("body.color_keys.0.element_key"). Malformed JSON passes:
// the handler's decoding explains it.
func CheckJSONText(field string, data []byte) error {
	if msg := textProblem(string(data)); msg == msgNUL {
		return errs.InvalidFields(errs.Field(field, msg))
	}
	fields, _ := guardJSON(data)
	if len(fields) == 0 {
		return nil
	}
	for i, f := range fields {
		fields[i].Field = field + strings.TrimPrefix(f.Field, "body")
	}
	return errs.InvalidFields(fields...)
}

// fieldName makes a name taken from the request printable: NUL and invalid bytes are escaped.
func fieldName(s string) string {
	if textProblem(s) == "" {
		return s
	}
	q := strconv.QuoteToASCII(s)
	return q[1 : len(q)-1]
}

// guardParams checks the path parameters, every query parameter (query, the request's parsed
// query; nil when it is malformed, which the validator reports) and the headers the operation
// declares.
func guardParams(req *http.Request, query url.Values, op *openapi3.Operation, pathItem *openapi3.PathItem, params map[string]string) []errs.FieldError {
	var out []errs.FieldError
	for _, name := range slices.Sorted(mapKeys(params)) {
		v := params[name]
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		if msg := textProblem(v); msg != "" {
			out = append(out, errs.Field("path."+fieldName(name), msg))
		}
	}
	if query != nil {
		for _, name := range slices.Sorted(mapKeys(query)) {
			for _, v := range query[name] {
				if msg := textProblem(name + v); msg != "" {
					out = append(out, errs.Field("query."+fieldName(name), msg))
					break
				}
			}
		}
	}
	var declared []*openapi3.ParameterRef
	if pathItem != nil {
		declared = append(declared, pathItem.Parameters...)
	}
	declared = append(declared, op.Parameters...)
	for _, p := range declared {
		if p.Value == nil || p.Value.In != openapi3.ParameterInHeader {
			continue
		}
		for _, v := range req.Header.Values(p.Value.Name) {
			if msg := textProblem(v); msg != "" {
				out = append(out, errs.Field("header."+p.Value.Name, msg))
				break
			}
		}
	}
	return out
}

// readBody reads a (limited) body and hands the next reader, the validator or the handler, a
// fresh copy of it.
func readBody(req *http.Request) ([]byte, error) {
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return data, nil
}

// isText reports whether a streamed body is text (text/markdown, text/plain): small documents
// whose handlers store them as text, bounded by the operation's body limit.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && strings.HasPrefix(mt, "text/")
}

// guardText reads a text body and refuses NUL or invalid UTF-8 in it.
func guardText(req *http.Request) ([]errs.FieldError, error) {
	data, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if msg := textProblem(string(data)); msg != "" {
		return []errs.FieldError{errs.Field("body", msg)}, nil
	}
	return nil, nil
}

// errTrailing marks a JSON body with data after its document.
var errTrailing = errors.New(msgTrailing)

// guardBody reads a JSON or url-encoded body (already capped by the body limit), checks every
// string in it, keys included, and hands the handler (and the validator) a fresh copy.
// Malformed JSON is left to the validator, which names the syntax error.
func guardBody(req *http.Request) ([]errs.FieldError, error) {
	if !hasBody(req) {
		return nil, nil
	}
	// The media type was matched against the operation's before: it parses.
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	data, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if mt == "application/x-www-form-urlencoded" {
		var out []errs.FieldError
		if form, err := url.ParseQuery(string(data)); err == nil {
			for _, name := range slices.Sorted(mapKeys(form)) {
				for _, v := range form[name] {
					if msg := textProblem(name + v); msg != "" {
						out = append(out, errs.Field("body."+fieldName(name), msg))
						break
					}
				}
			}
		}
		return out, nil
	}
	return guardJSON(data)
}

// cleanJSON reports whether data is a well-formed JSON document in which no string can hold NUL or
// invalid UTF-8: it is valid UTF-8 throughout and holds neither a NUL byte nor the escape
// \u0000. Nearly every body is, and is then checked in a few passes over its bytes without
// allocating; the others are walked token by token, which names the strings at fault.
func cleanJSON(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 && !bytes.Contains(data, []byte(`\u0000`)) && json.Valid(data)
}

// jsonFrame is an object or array the walk is inside.
type jsonFrame struct {
	object  bool
	key     string // the member being read (objects)
	index   int    // the element being read (arrays)
	wantKey bool
}

// guardJSON walks every token of a JSON document: strings (values and keys) holding NUL
// (written raw or as \u0000) or invalid UTF-8 are named by their path ("body.items.0.name");
// anything after the document is errTrailing. A syntax error stops the walk silently.
func guardJSON(data []byte) ([]errs.FieldError, error) {
	if cleanJSON(data) {
		return nil, nil
	}
	return walkJSON(data)
}

// walkJSON is guardJSON's walk over every token.
func walkJSON(data []byte) ([]errs.FieldError, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var (
		stack []jsonFrame
		out   []errs.FieldError
		seen  bool
	)
	path := func() string {
		var b strings.Builder
		b.WriteString("body")
		for _, f := range stack {
			b.WriteByte('.')
			if f.object {
				b.WriteString(fieldName(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	advance := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			if seen && len(stack) == 0 {
				return nil, errTrailing
			}
			return out, nil // malformed: the validator explains
		}
		if seen && len(stack) == 0 {
			return nil, errTrailing
		}
		raw := data[start:dec.InputOffset()]
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, jsonFrame{object: v == '{', wantKey: v == '{'})
			default:
				stack = stack[:len(stack)-1]
				advance()
			}
		case string:
			msg := textProblem(v)
			if msg == "" && !utf8.Valid(raw) {
				msg = msgUTF8
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = v, false
				if msg != "" {
					out = append(out, errs.Field(path(), "the property name "+msg))
				}
				continue
			}
			if msg != "" {
				out = append(out, errs.Field(path(), msg))
			}
			advance()
		default:
			advance()
		}
		if len(stack) == 0 {
			seen = true
		}
	}
}
