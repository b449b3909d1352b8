package httpx

import (
	"context"
	"mime"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/videotpl/platform/pkg/errs"
)

// The contract middleware leaves multipart bodies unread so that uploads stream; the handler
// reads the parts and passes each text field through CheckFormField, which holds it to the
// operation's multipart/form-data schema as the middleware holds a JSON body.

type formSchemaKey struct{}

// withFormSchema keeps the operation's multipart/form-data schema in the request's context
// when the request carries such a body.
func withFormSchema(req *http.Request, op *openapi3.Operation) *http.Request {
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || op.RequestBody == nil || op.RequestBody.Value == nil {
		return req
	}
	media := op.RequestBody.Value.Content.Get("multipart/form-data")
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return req
	}
	return req.WithContext(context.WithValue(req.Context(), formSchemaKey{}, media.Schema.Value))
}

// CheckFormField refuses a multipart text field with a 400 naming it ("body.name"): a NUL
// character or invalid UTF-8, a field the operation's form schema does not name when the
// schema is closed (additionalProperties: false), or a value its property's schema refuses
// (maxLength, enum, format, pattern). A property that is not a string in the schema (a file, a
// boolean, a JSON document) is checked as text only: its handler parses it.
func CheckFormField(ctx context.Context, name, value string) error {
	field := "body." + fieldName(name)
	if err := CheckText(field, value); err != nil {
		return err
	}
	schema, _ := ctx.Value(formSchemaKey{}).(*openapi3.Schema)
	if schema == nil {
		return nil
	}
	prop := schema.Properties[name]
	if prop == nil || prop.Value == nil {
		if closed(schema) {
			return errs.InvalidFields(errs.Field(field, msgUnknownProp))
		}
		return nil
	}
	if !prop.Value.Type.Is("string") || prop.Value.Format == "binary" {
		return nil
	}
	if err := prop.Value.VisitJSON(value, SchemaValidationOptions()...); err != nil {
		var out []errs.FieldError
		valueFields(field, prop.Value, err, &out)
		return errs.InvalidFields(out...)
	}
	return nil
}

// CheckFormPart refuses a part the operation's closed form schema does not name (the handler
// calls it for the parts it does not read).
func CheckFormPart(ctx context.Context, name string) error {
	schema, _ := ctx.Value(formSchemaKey{}).(*openapi3.Schema)
	if schema == nil || schema.Properties[name] != nil || !closed(schema) {
		return nil
	}
	return errs.InvalidFields(errs.Field("body."+fieldName(name), msgUnknownProp))
}

func closed(s *openapi3.Schema) bool {
	return s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
}
