package specs

import (
	"context"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// Every POST that creates a resource (answers 201) takes an Idempotency-Key, and every operation
// that takes one declares the answers the key can give besides the operation's own: 409 while a
// request with the same key is in progress, 422 when the key was used for another request.
func TestEveryCreatingPostTakesAnIdempotencyKeyAndDeclaresItsAnswers(t *testing.T) {
	for _, service := range []string{"content", "orgboard", "renderevents"} {
		b, err := OpenAPI(service)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := openapi3.NewLoader().LoadFromData(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Fatal(err)
		}
		keyed := 0
		for _, path := range doc.Paths.InMatchingOrder() {
			for method, op := range doc.Paths.Value(path).Operations() {
				takesKey := slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool {
					return p.Value != nil && p.Value.In == "header" && p.Value.Name == "Idempotency-Key"
				})
				if method == "POST" && op.Responses.Value("201") != nil && !takesKey {
					t.Errorf("%s.yaml: %s %s creates a resource but takes no Idempotency-Key", service, method, path)
				}
				if !takesKey {
					continue
				}
				keyed++
				for _, code := range []string{"409", "422"} {
					if op.Responses.Value(code) == nil {
						t.Errorf("%s.yaml: %s %s takes an Idempotency-Key but does not declare %s", service, method, path, code)
					}
				}
			}
		}
		if keyed == 0 {
			t.Errorf("%s.yaml: no operation takes an Idempotency-Key", service)
		}
	}
}
