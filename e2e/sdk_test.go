package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// sealKeys is the keyring of the services that seal secrets: they run as in production, where
// they refuse to start without one.
const sealKeys = "SEAL_KEYS=e2e:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// orgboardServer migrates a fresh database with `orgboard migrate` (the Job's command) and
// serves it, verifying issuer's tokens with the keys of its JWKS as a production deployment
// does; it returns the process and its base URL.
func orgboardServer(t *testing.T, issuer *authtest.Issuer) (*process, string) {
	t.Helper()
	bin := serviceBinary(t, "orgboard")
	_, dbURL := pgtest.NewDB(t)
	issuer.ServeJWKS(t)
	env := append([]string{"DATABASE_URL=" + dbURL, "LOG_LEVEL=info", sealKeys}, issuer.Env()...)
	if err := startProcess(t, bin, env, "migrate").wait(t, time.Minute); err != nil {
		t.Fatalf("orgboard migrate: %v", err)
	}
	addr := freeAddr(t)
	p := startProcess(t, bin, append(env, "HTTP_ADDR="+addr, "SHUTDOWN_DRAIN=15s"), "serve")
	base := "http://" + addr
	waitReady(t, p, base, 30*time.Second)
	return p, base
}

// nodeBin is where the pinned npm tools are (scripts/test.sh exports NODE_BIN).
func nodeBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("NODE_BIN")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "node_modules", ".bin")
	}
	if _, err := os.Stat(filepath.Join(dir, "tsc")); err != nil {
		t.Fatalf("tsc not found in %s (run `make tools`): %v", dir, err)
	}
	return dir
}

// sdkBuild is `make sdk` (without its `make tools` prerequisite, which `make test` has run),
// run once for the tests that use the built packages.
var sdkBuild struct {
	once sync.Once
	out  []byte
	err  error
}

// buildSDKs runs scripts/sdk.sh once per test binary and checks that every package has its
// ES module build (dist/esm), its CommonJS build (dist/cjs) and the marker that makes Node load
// dist/cjs as CommonJS inside a "type": "module" package.
func buildSDKs(t *testing.T) {
	t.Helper()
	root := repoRoot(t)
	sdkBuild.once.Do(func() {
		cmd := exec.Command("bash", "scripts/sdk.sh")
		cmd.Dir = root
		sdkBuild.out, sdkBuild.err = cmd.CombinedOutput()
	})
	if sdkBuild.err != nil {
		t.Fatalf("make sdk: %v\n%s", sdkBuild.err, sdkBuild.out)
	}
	for _, s := range services {
		for _, f := range []string{"dist/esm/index.js", "dist/esm/index.d.ts", "dist/esm/schema.d.ts", "dist/cjs/index.js", "dist/cjs/index.d.ts"} {
			if _, err := os.Stat(filepath.Join(root, "gen", "ts", s.name, f)); err != nil {
				t.Errorf("make sdk did not build gen/ts/%s/%s", s.name, f)
			}
		}
		marker, err := os.ReadFile(filepath.Join(root, "gen", "ts", s.name, "dist", "cjs", "package.json"))
		var pkg struct{ Type string }
		if err != nil || json.Unmarshal(marker, &pkg) != nil || pkg.Type != "commonjs" {
			t.Errorf("gen/ts/%s/dist/cjs/package.json = %q (%v), want {\"type\":\"commonjs\"}", s.name, marker, err)
		}
	}
}

// tsProject is a project of its own in a temporary directory: its package.json, a tsconfig
// compiling src/ with moduleType's NodeNext rules, and the SDK packages linked into node_modules
// by name, as an npm install would place them.
func tsProject(t *testing.T, moduleType string) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "package.json"), `{"name": "sdk-consumer", "private": true, "type": "`+moduleType+`"}`)
	writeFile(t, filepath.Join(dir, "tsconfig.json"), `{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "types": ["node"], "outDir": "dist", "rootDir": "src", "skipLibCheck": true
  },
  "include": ["src"]
}`)
	for _, s := range services {
		symlink(t, filepath.Join(root, "gen", "ts", s.name), filepath.Join(dir, "node_modules", "@videotpl", s.name+"-sdk"))
	}
	symlink(t, filepath.Join(root, "node_modules", "@types", "node"), filepath.Join(dir, "node_modules", "@types", "node"))
	return dir
}

func TestESModuleAndCommonJSProgramsCallARunningServiceThroughTheSDKThatMakeSdkBuilds(t *testing.T) {
	root := repoRoot(t)
	tsc := filepath.Join(nodeBin(t), "tsc")
	buildSDKs(t)

	esm := tsProject(t, "module")
	copyFile(t, filepath.Join(root, "e2e", "testdata", "tsclient", "main.ts"), filepath.Join(esm, "src", "main.ts"))
	runCmd(t, esm, nil, tsc, "-p", "tsconfig.json")
	cjs := tsProject(t, "commonjs")
	copyFile(t, filepath.Join(root, "e2e", "testdata", "tsclient-cjs", "main.ts"), filepath.Join(cjs, "src", "main.ts"))
	runCmd(t, cjs, nil, tsc, "-p", "tsconfig.json")
	if js, err := os.ReadFile(filepath.Join(cjs, "dist", "main.js")); err != nil || !strings.Contains(string(js), `require("@videotpl/orgboard-sdk")`) {
		t.Fatalf("the CommonJS program does not require() the SDK (%v):\n%s", err, js)
	}

	issuer := authtest.New(t)
	_, base := orgboardServer(t, issuer)
	name := "TS SDK org " + uuid.NewString()[:8]
	token := issuer.Token(t, authtest.ViaJWKS())
	out := runCmd(t, esm, nil, "node", filepath.Join("dist", "main.js"), base, token, name)

	var got struct {
		APIVersion string `json:"apiVersion"`
		Created    struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Status int    `json:"status"`
		} `json:"created"`
		ListStatus          int      `json:"listStatus"`
		Names               []string `json:"names"`
		DeniedStatus        int      `json:"deniedStatus"`
		DeniedProblemStatus int      `json:"deniedProblemStatus"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &got); err != nil {
		t.Fatalf("the program printed %q: %v", out, err)
	}
	if got.Created.Status != 201 || got.Created.Name != name || uuid.Validate(got.Created.ID) != nil {
		t.Errorf("created = %+v, want 201 with the name and an id", got.Created)
	}
	if got.ListStatus != 200 || len(got.Names) != 1 || got.Names[0] != name {
		t.Errorf("list = %d %v, want 200 [%s]", got.ListStatus, got.Names, name)
	}
	if got.DeniedStatus != 401 || got.DeniedProblemStatus != 401 {
		t.Errorf("anonymous call = %d (problem status %d), want 401 with a problem body", got.DeniedStatus, got.DeniedProblemStatus)
	}
	if got.APIVersion == "" {
		t.Error("the package does not export its API version")
	}

	out = runCmd(t, cjs, nil, "node", filepath.Join("dist", "main.js"), base, token)
	var cjsGot struct {
		APIVersion string `json:"apiVersion"`
		Resolved   string `json:"resolved"`
		ListStatus int    `json:"listStatus"`
		Count      int    `json:"count"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &cjsGot); err != nil {
		t.Fatalf("the CommonJS program printed %q: %v", out, err)
	}
	if cjsGot.APIVersion != got.APIVersion || cjsGot.ListStatus != 200 || cjsGot.Count != 1 {
		t.Errorf("CommonJS program = %+v, want version %s and 200 with the one organization", cjsGot, got.APIVersion)
	}
	if want := filepath.Join("dist", "cjs", "index.js"); !strings.HasSuffix(cjsGot.Resolved, want) {
		t.Errorf("require() loaded %s, want the CommonJS build .../%s", cjsGot.Resolved, want)
	}
}

// TestEveryOperationCompilesAgainstTheTypeScriptSDKsWithOnlyItsRequiredInputs compiles, for each
// spec, a program that calls every operation with only its required parameters and body
// properties (tsprogram_test.go writes it from the spec): a property the spec leaves optional,
// with or without a default, must be optional in the SDK's request types, and a property a
// response requires must be required in its response type.
func TestEveryOperationCompilesAgainstTheTypeScriptSDKsWithOnlyItsRequiredInputs(t *testing.T) {
	root := repoRoot(t)
	tsc := filepath.Join(nodeBin(t), "tsc")
	buildSDKs(t)
	dir := tsProject(t, "module")
	for _, s := range services {
		spec := filepath.Join("specs", "openapi", s.name+".yaml")
		doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(root, spec))
		if err != nil {
			t.Fatal(err)
		}
		program := requiredOnlyProgram(doc, spec, "@videotpl/"+s.name+"-sdk", strings.ToUpper(s.name[:1])+s.name[1:]+"Client")
		operations := 0
		for _, item := range doc.Paths.Map() {
			operations += len(item.Operations())
		}
		if calls := strings.Count(program, "export async function "); calls != operations || operations == 0 {
			t.Fatalf("%s: the program calls %d operations of %d", spec, calls, operations)
		}
		writeFile(t, filepath.Join(dir, "src", s.name+".ts"), program)
	}
	cmd := exec.Command(tsc, "-p", "tsconfig.json", "--noEmit")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a call with only the required inputs does not compile: %v\n%s", err, out)
	}
}

func TestTheGoExamplesBuildOutsideTheWorkspaceAndCallARunningService(t *testing.T) {
	root := repoRoot(t)
	bin := t.TempDir()
	examples := filepath.Join(root, "e2e", "examples")
	// GOWORK=off and a read-only go.mod: the examples' module alone, which requires the gen
	// module and nothing else of the platform, as a team's module outside the repository does.
	offWorkspace := []string{"GOWORK=off", "GOFLAGS=-mod=readonly"}
	runCmd(t, examples, offWorkspace, "go", "vet", "./...")
	runCmd(t, examples, offWorkspace, "go", "build", "-o", bin+"/", "./...")
	// With go.sum read-only, a build that needed echo or kin-openapi would fail without their sums.
	sums, err := os.ReadFile(filepath.Join(examples, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"github.com/labstack/echo", "github.com/getkin/kin-openapi"} {
		if strings.Contains(string(sums), m) {
			t.Errorf("the examples' go.sum holds %s: a client user downloads a server dependency", m)
		}
	}
	for _, s := range services {
		if _, err := os.Stat(filepath.Join(bin, s.name)); err != nil {
			t.Errorf("example %s did not build: %v", s.name, err)
		}
	}

	issuer := authtest.New(t)
	_, base := orgboardServer(t, issuer)
	cmd := exec.Command(filepath.Join(bin, "orgboard"), "-base", base, "-name", "Go example org")
	cmd.Env = append(os.Environ(), "TOKEN="+issuer.Token(t, authtest.ViaJWKS()))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("orgboard example: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"Go example org"`) || !strings.Contains(string(out), "1 organizations") {
		t.Errorf("orgboard example printed:\n%s", out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
