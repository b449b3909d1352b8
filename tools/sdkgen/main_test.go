package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const spec = `openapi: 3.0.3
info: {title: Demo service API, version: 2.3.1}
servers:
  - url: http://{host}/v1
    variables:
      host: {default: "localhost:9999"}
paths: {}
`

func setup(t *testing.T, fetchVersion string) (specPath, out, root string) {
	t.Helper()
	dir := t.TempDir()
	specPath = filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := `{"devDependencies": {"openapi-fetch": "` + fetchVersion + `"}}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	return specPath, filepath.Join(dir, "out"), dir
}

func TestThePackageIsNamedAndVersionedAfterTheSpecAndPinsOpenapiFetch(t *testing.T) {
	specPath, out, root := setup(t, "0.17.0")
	if err := run(specPath, out, root); err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Name         string            `json:"name"`
		Version      string            `json:"version"`
		Types        string            `json:"types"`
		Dependencies map[string]string `json:"dependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("package.json is not JSON: %v", err)
	}
	if pkg.Name != "@videotpl/demo-sdk" || pkg.Version != "2.3.1" || pkg.Types != "./dist/index.d.ts" {
		t.Errorf("package.json = %+v", pkg)
	}
	if pkg.Dependencies["openapi-fetch"] != "0.17.0" {
		t.Errorf("openapi-fetch dependency = %q, want the repository's pin 0.17.0", pkg.Dependencies["openapi-fetch"])
	}
	index, err := os.ReadFile(filepath.Join(out, "src", "index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`export const defaultBaseUrl = "http://localhost:9999/v1";`,
		`export function createDemoClient(`,
		`createClient<paths>(`,
	} {
		if !strings.Contains(string(index), want) {
			t.Errorf("src/index.ts lacks %q", want)
		}
	}
	var tsconfig map[string]any
	raw, err = os.ReadFile(filepath.Join(out, "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &tsconfig); err != nil {
		t.Errorf("tsconfig.json is not JSON: %v", err)
	}
}

func TestARangeOfOpenapiFetchVersionsIsRefused(t *testing.T) {
	specPath, out, root := setup(t, "^0.17.0")
	if err := run(specPath, out, root); err == nil || !strings.Contains(err.Error(), "exact version") {
		t.Errorf("run with a version range = %v, want an error asking for an exact version", err)
	}
}
