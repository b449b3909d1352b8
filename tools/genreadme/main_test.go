package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRepo is a repository root with one service, the event catalogue and the gen module.
func fakeRepo(t *testing.T, serviceVersion string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"gen/go.mod":                     "module example.com/platform/gen\n\ngo 1.26\n",
		"specs/openapi/demo.yaml":        "openapi: 3.0.3\ninfo: {title: Demo service API, version: " + serviceVersion + "}\npaths: {}\n",
		"specs/asyncapi/events.yaml":     "asyncapi: 3.0.0\ninfo: {title: Demo events, version: 1.4.0}\n",
		"specs/codegen/demo/client.yaml": "package: demo\noutput: gen/demo/client.gen.go\n",
		"specs/codegen/demo/server.yaml": "package: demoserver\noutput: gen/demo/demoserver/server.gen.go\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestThePageNamesThePackagesTheSpecVersionsAndTheTagOfARelease(t *testing.T) {
	page, err := render(fakeRepo(t, "1.3.2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# example.com/platform/gen",
		"| `example.com/platform/gen/demo` | Demo service API: models and client",
		"| `example.com/platform/gen/demo/demoserver` | the service's side of the Demo service API",
		"| `example.com/platform/gen/events` | Demo events",
		"| `specs/openapi/demo.yaml` | 1.3.2 |",
		"| `specs/asyncapi/events.yaml` | 1.4.0 |",
		"go get example.com/platform/gen@v1.2.0",
		"the tag `gen/v1.2.0`",
		`git tag -a gen/v1.2.0 -m "gen v1.2.0: Demo service API 1.3.2; Demo events 1.4.0"`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

func TestASpecWithoutASemanticVersionIsRefused(t *testing.T) {
	if _, err := render(fakeRepo(t, "latest")); err == nil || !strings.Contains(err.Error(), "info.version") {
		t.Errorf("render with info.version latest = %v, want an error naming info.version", err)
	}
}
