package httpx

import "testing"

func TestANearMissPathNamesThePathTheSpecHas(t *testing.T) {
	h := &pathHints{templates: []pathTemplate{
		{segments: []string{"api", "orgboard", "products", "{id}"}, methods: []string{"GET"}},
		{segments: []string{"products", "{id}", "identity"}, methods: []string{"GET", "PUT"}},
		{segments: []string{"products", "{id}", "identity", "versions"}, methods: []string{"GET"}},
		{segments: []string{"api", "governance", "audit"}, methods: []string{"GET"}},
		{segments: []string{"v1", "{kind}", "items"}, methods: []string{"GET"}},
	}}
	for _, tt := range []struct{ method, path, want string }{
		{"GET", "/api/orgboard/products/p1/identity", "/products/p1/identity"},
		{"PUT", "/api/orgboard/products/p1/identity/versions", "/products/p1/identity/versions"},
		{"GET", "/products/p1", "/api/orgboard/products/p1"},
		{"GET", "/api/orgboard/governance/audit", "/api/governance/audit"},
		{"GET", "/api/orgboard/audit", "/api/governance/audit"},
		{"GET", "/items", ""},                      // the template's prefix holds a parameter: nothing to write out
		{"GET", "/api/orgboard/products/p1/x", ""}, // no template ends like this
		{"GET", "/p1", ""},                         // a shared parameter alone says nothing
		{"GET", "/", ""},
	} {
		if got := h.suggest(tt.method, tt.path); got != tt.want {
			t.Errorf("%s %s: suggested %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}
}
