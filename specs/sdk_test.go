package specs

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// serverOnlyModules are what a service needs and a client must not pull in: the echo
// framework of the strict server and kin-openapi of the embedded spec.
var serverOnlyModules = []string{"github.com/labstack/echo", "github.com/getkin/kin-openapi"}

// codegenConfig is the part of an oapi-codegen configuration (specs/codegen/<s>/*.yaml) read here.
type codegenConfig struct {
	Package string `yaml:"package"`
	Output  string `yaml:"output"`
}

func readCodegenConfig(t *testing.T, service, part string) codegenConfig {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "specs", "codegen", service, part+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c codegenConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("specs/codegen/%s/%s.yaml: %v", service, part, err)
	}
	return c
}

// codegenServices are the services with an oapi-codegen configuration directory.
func codegenServices(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot(), "specs", "codegen"))
	if err != nil {
		t.Fatal(err)
	}
	var services []string
	for _, e := range entries {
		if e.IsDir() {
			services = append(services, e.Name())
		}
	}
	if len(services) == 0 {
		t.Fatal("specs/codegen holds no service")
	}
	return services
}

// importPath is the Go import path of the package a generated file under gen/ belongs to.
func importPath(t *testing.T, output string) string {
	t.Helper()
	rel, ok := strings.CutPrefix(path.Dir(output), "gen/")
	if !ok {
		t.Fatalf("%s is not under gen/", output)
	}
	return genModulePath(t) + "/" + rel
}

// genModulePath is the module path that gen/go.mod declares.
func genModulePath(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "gen", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`)
		}
	}
	t.Fatal("gen/go.mod declares no module")
	return ""
}

// deps lists every package pkg imports, directly or not (go list -deps, the workspace's versions).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", pkg)
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, msg)
	}
	return strings.Fields(string(out))
}

// serverOnlyDeps are the packages of deps that belong to a server-only module.
func serverOnlyDeps(deps []string) []string {
	var found []string
	for _, d := range deps {
		for _, m := range serverOnlyModules {
			if d == m || strings.HasPrefix(d, m+"/") {
				found = append(found, d)
			}
		}
	}
	return found
}

// TestTheGoSDKPackagesImportNeitherEchoNorKinOpenAPI: a team that calls a service through its
// Go client (gen/<service>: models and client) must not compile a web framework and an
// OpenAPI loader it never runs. The server package next to it is where they belong.
func TestTheGoSDKPackagesImportNeitherEchoNorKinOpenAPI(t *testing.T) {
	for _, s := range codegenServices(t) {
		client, types, server := readCodegenConfig(t, s, "client"), readCodegenConfig(t, s, "types"), readCodegenConfig(t, s, "server")
		sdk := importPath(t, client.Output)
		if got := importPath(t, types.Output); got != sdk {
			t.Errorf("%s: the models are generated into %s, want them beside the client in %s", s, got, sdk)
		}
		if importPath(t, server.Output) == sdk {
			t.Errorf("%s: the strict server is generated into the client package %s", s, sdk)
		}
		sdkDeps := deps(t, sdk)
		if !slices.Contains(sdkDeps, sdk) {
			t.Fatalf("go list -deps %s does not list the package itself: %v", sdk, sdkDeps)
		}
		if bad := serverOnlyDeps(sdkDeps); len(bad) > 0 {
			t.Errorf("%s imports server-only packages: %v", sdk, bad)
		}
		// The same check on the server package finds them: the test looks where they would be.
		if serverOnlyDeps(deps(t, importPath(t, server.Output))) == nil {
			t.Errorf("%s: the server package imports neither echo nor kin-openapi, so this check sees nothing", s)
		}
	}
}

// TestTheGenModuleMajorVersionIsTheHighestMajorVersionOfTheSpecs: the gen module is tagged
// gen/vX.Y.Z, X the highest major version of the specs; Go needs a /vN suffix on the module
// path from v2 on, so a spec's new major version cannot ship without a new module path.
func TestTheGenModuleMajorVersionIsTheHighestMajorVersionOfTheSpecs(t *testing.T) {
	modPath := genModulePath(t)
	moduleMajor := 1
	if i := strings.LastIndex(modPath, "/v"); i >= 0 {
		if n, err := strconv.Atoi(modPath[i+2:]); err == nil {
			moduleMajor = n
		}
	}
	highest, versions := 0, map[string]string{}
	for _, spec := range []string{"openapi/content.yaml", "openapi/orgboard.yaml", "openapi/renderevents.yaml", "asyncapi/events.yaml"} {
		raw, err := os.ReadFile(specPath(spec))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Info struct {
				Version string `yaml:"version"`
			} `yaml:"info"`
		}
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		specMajor, _, _ := strings.Cut(doc.Info.Version, ".")
		n, err := strconv.Atoi(specMajor)
		if err != nil {
			t.Fatalf("%s: info.version %q has no major version", spec, doc.Info.Version)
		}
		highest = max(highest, n)
		versions[spec] = doc.Info.Version
	}
	if max(highest, 1) != moduleMajor {
		t.Errorf("the specs reach major version %d (%v) but the gen module %s is major version %d", highest, versions, modPath, moduleMajor)
	}
}
