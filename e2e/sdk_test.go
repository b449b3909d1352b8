package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// devSecret signs the development JWTs of the services the tests start.
const devSecret = "e2e-test-secret-0123456789abcdef0123456789"

// sealKeys is the keyring of the services that seal secrets: they run as in production, where
// they refuse to start without one.
const sealKeys = "SEAL_KEYS=e2e:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// orgboardServer migrates a fresh database with `orgboard migrate` (the Job's command) and
// serves it; it returns the process and its base URL.
func orgboardServer(t *testing.T) (*process, string) {
	t.Helper()
	bin := serviceBinary(t, "orgboard")
	_, dbURL := pgtest.NewDB(t)
	env := []string{"DATABASE_URL=" + dbURL, "JWT_HS256_SECRET=" + devSecret, "LOG_LEVEL=info", "AMQP_URL=" + amqpURL(), sealKeys}
	if err := startProcess(t, bin, env, "migrate").wait(t, time.Minute); err != nil {
		t.Fatalf("orgboard migrate: %v", err)
	}
	addr := freeAddr(t)
	p := startProcess(t, bin, append(env, "HTTP_ADDR="+addr, "SHUTDOWN_DRAIN=15s"), "serve")
	base := "http://" + addr
	waitReady(t, p, base, 30*time.Second)
	return p, base
}

func userToken(t *testing.T, sub, tenant uuid.UUID, roles ...string) string {
	t.Helper()
	tok, err := auth.MintJWT([]byte(devSecret), "videotpl-dev", "videotpl", sub, tenant, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
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

func TestATypeScriptProgramCallsARunningServiceThroughTheSDKThatMakeSdkBuilds(t *testing.T) {
	root := repoRoot(t)
	tsc := filepath.Join(nodeBin(t), "tsc")

	// `make sdk` (without its `make tools` prerequisite, which `make test` has run).
	runCmd(t, root, nil, "bash", "scripts/sdk.sh")
	for _, s := range services {
		for _, f := range []string{"dist/index.js", "dist/index.d.ts", "dist/schema.d.ts"} {
			if _, err := os.Stat(filepath.Join(root, "gen", "ts", s.name, f)); err != nil {
				t.Errorf("make sdk did not build gen/ts/%s/%s", s.name, f)
			}
		}
	}

	// A project of its own that depends on the package by name.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "package.json"), `{"name": "sdk-consumer", "private": true, "type": "module"}`)
	writeFile(t, filepath.Join(dir, "tsconfig.json"), `{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "types": ["node"], "outDir": "dist", "rootDir": "src", "skipLibCheck": true
  },
  "include": ["src"]
}`)
	copyFile(t, filepath.Join(root, "e2e", "testdata", "tsclient", "main.ts"), filepath.Join(dir, "src", "main.ts"))
	symlink(t, filepath.Join(root, "gen", "ts", "orgboard"), filepath.Join(dir, "node_modules", "@videotpl", "orgboard-sdk"))
	symlink(t, filepath.Join(root, "node_modules", "@types", "node"), filepath.Join(dir, "node_modules", "@types", "node"))
	runCmd(t, dir, nil, tsc, "-p", "tsconfig.json")

	_, base := orgboardServer(t)
	name := "TS SDK org " + uuid.NewString()[:8]
	token := userToken(t, uuid.New(), uuid.New())
	out := runCmd(t, dir, nil, "node", filepath.Join("dist", "main.js"), base, token, name)

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
}

func TestTheGoExamplesBuildOutsideTheWorkspaceAndCallARunningService(t *testing.T) {
	root := repoRoot(t)
	bin := t.TempDir()
	// GOWORK=off: the e2e module alone, with its go.mod (replace directives to gen/ and pkg/),
	// as any other module using the generated clients.
	runCmd(t, filepath.Join(root, "e2e"), []string{"GOWORK=off", "GOFLAGS=-mod=readonly"}, "go", "build", "-o", bin+"/", "./examples/...")
	for _, s := range services {
		if _, err := os.Stat(filepath.Join(bin, s.name)); err != nil {
			t.Errorf("example %s did not build: %v", s.name, err)
		}
	}

	_, base := orgboardServer(t)
	cmd := exec.Command(filepath.Join(bin, "orgboard"), "-base", base, "-name", "Go example org")
	cmd.Env = append(os.Environ(), "TOKEN="+userToken(t, uuid.New(), uuid.New()))
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
