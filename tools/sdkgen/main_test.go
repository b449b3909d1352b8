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

func TestThePackageIsNamedAndVersionedAfterTheSpecPinsOpenapiFetchAndBuildsForImportAndRequire(t *testing.T) {
	specPath, out, root := setup(t, "0.17.0")
	if err := run(specPath, out, root); err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Name         string `json:"name"`
		Version      string `json:"version"`
		Main         string `json:"main"`
		Types        string `json:"types"`
		Exports      map[string]map[string]struct{ Types, Default string }
		Scripts      map[string]string `json:"scripts"`
		Dependencies map[string]string `json:"dependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("package.json is not JSON: %v", err)
	}
	if pkg.Name != "@videotpl/demo-sdk" || pkg.Version != "2.3.1" || pkg.Main != "./dist/cjs/index.js" || pkg.Types != "./dist/cjs/index.d.ts" {
		t.Errorf("package.json = %+v", pkg)
	}
	// import gets the ES modules, require() the CommonJS build, each with its own declarations.
	for condition, dir := range map[string]string{"import": "./dist/esm/", "require": "./dist/cjs/"} {
		got := pkg.Exports["."][condition]
		if got.Types != dir+"index.d.ts" || got.Default != dir+"index.js" {
			t.Errorf(`exports["."][%q] = %+v, want %sindex.{d.ts,js}`, condition, got, dir)
		}
	}
	for _, want := range []string{"tsc -p tsconfig.json", "tsc -p tsconfig.cjs.json", "dist/cjs/package.json", "type: 'commonjs'"} {
		if !strings.Contains(pkg.Scripts["build"], want) {
			t.Errorf("the build script %q lacks %q", pkg.Scripts["build"], want)
		}
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
	for name, want := range map[string]struct{ module, outDir string }{
		"tsconfig.json":     {"NodeNext", "dist/esm"},
		"tsconfig.cjs.json": {"CommonJS", "dist/cjs"},
	} {
		var tsconfig struct {
			CompilerOptions struct{ Module, OutDir string }
		}
		raw, err = os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &tsconfig); err != nil {
			t.Errorf("%s is not JSON: %v", name, err)
		}
		if got := tsconfig.CompilerOptions; got.Module != want.module || got.OutDir != want.outDir {
			t.Errorf("%s compiles %s into %s, want %s into %s", name, got.Module, got.OutDir, want.module, want.outDir)
		}
	}
}

func TestARangeOfOpenapiFetchVersionsIsRefused(t *testing.T) {
	specPath, out, root := setup(t, "^0.17.0")
	if err := run(specPath, out, root); err == nil || !strings.Contains(err.Error(), "exact version") {
		t.Errorf("run with a version range = %v, want an error asking for an exact version", err)
	}
}
