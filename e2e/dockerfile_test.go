package e2e

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// A Dockerfile is read into stages of instructions. No Docker engine runs here, so the build
// stages are executed by buildStages below: the same files (COPY after .dockerignore) and the
// same commands (RUN) in a temporary directory per stage, with the host's Go toolchain and
// caches. The binary that comes out is the one the other tests of this package run.

type instruction struct {
	cmd   string   // upper case: FROM, RUN, COPY ...
	flags []string // --from=build, --mount=...
	args  string   // the rest, after flags
}

type stage struct {
	name  string // AS name; "" for the final stage without one
	image string // FROM image, ARGs substituted
	ins   []instruction
	args  map[string]string // the ARGs the stage declares, with their values
}

type dockerfile struct {
	path   string
	args   map[string]string // ARGs before the first FROM, with their values
	stages []stage
}

// parseDockerfile reads p as `docker build --build-arg k=v` would with buildArgs: a stage
// sees the ARGs it declares; their values are substituted in the instructions Docker expands
// (all but RUN, CMD, ENTRYPOINT and HEALTHCHECK; RUN gets them as environment variables).
func parseDockerfile(t testing.TB, p string, buildArgs map[string]string) dockerfile {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	df := dockerfile{path: p, args: map[string]string{}}
	argValue := func(k, def string, hasDef bool, global map[string]string) string {
		if v, ok := buildArgs[k]; ok {
			return v
		}
		if hasDef {
			return def
		}
		return global[k]
	}
	var logical []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		cur.WriteString(line)
		logical = append(logical, cur.String())
		cur.Reset()
	}
	for _, l := range logical {
		cmd, rest, _ := strings.Cut(l, " ")
		in := instruction{cmd: strings.ToUpper(cmd)}
		rest = strings.TrimSpace(rest)
		for strings.HasPrefix(rest, "--") {
			flag, after, _ := strings.Cut(rest, " ")
			in.flags = append(in.flags, flag)
			rest = strings.TrimSpace(after)
		}
		in.args = rest
		switch {
		case in.cmd == "ARG" && len(df.stages) == 0:
			k, v, ok := strings.Cut(in.args, "=")
			df.args[k] = argValue(k, v, ok, nil)
		case in.cmd == "FROM":
			f := strings.Fields(in.args)
			s := stage{image: df.expand(f[0]), args: map[string]string{}}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			df.stages = append(df.stages, s)
		case len(df.stages) == 0:
			t.Fatalf("%s: %s before FROM", p, in.cmd)
		case in.cmd == "ARG":
			last := &df.stages[len(df.stages)-1]
			k, v, ok := strings.Cut(in.args, "=")
			last.args[k] = argValue(k, v, ok, df.args)
		default:
			last := &df.stages[len(df.stages)-1]
			switch in.cmd {
			case "RUN", "CMD", "ENTRYPOINT", "HEALTHCHECK":
			default:
				in.args = os.Expand(in.args, func(k string) string { return last.args[k] })
			}
			last.ins = append(last.ins, in)
		}
	}
	return df
}

func (df dockerfile) expand(s string) string {
	return os.Expand(s, func(k string) string { return df.args[k] })
}

func (df dockerfile) final() stage { return df.stages[len(df.stages)-1] }

// instructions of a stage with the given command.
func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.ins {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

func (in instruction) flag(name string) string {
	for _, f := range in.flags {
		if v, ok := strings.CutPrefix(f, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// jsonArgs reads an exec-form argument list: ["a", "b"].
func jsonArgs(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return nil
	}
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// buildContext is the repository root as the Docker build context: the files .dockerignore
// lets through.
type buildContext struct {
	root string
	pm   *patternmatcher.PatternMatcher
}

func newBuildContext(t testing.TB, root string) buildContext {
	t.Helper()
	f, err := os.Open(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return buildContext{root: root, pm: pm}
}

func (c buildContext) excluded(rel string) bool {
	ex, err := c.pm.MatchesOrParentMatches(filepath.ToSlash(rel))
	return err != nil || ex
}

// copyInto applies COPY src... dest of the build context to stageRoot (workdir is the
// stage's WORKDIR): a directory's content goes into dest, files and glob matches go into
// dest as a directory when it ends with "/".
func (c buildContext) copyInto(t testing.TB, in instruction, stageRoot, workdir string) {
	t.Helper()
	f := strings.Fields(in.args)
	srcs, dest := f[:len(f)-1], f[len(f)-1]
	if !path.IsAbs(dest) {
		dest = path.Join(workdir, dest) + map[bool]string{true: "/"}[strings.HasSuffix(dest, "/") || dest == "./" || dest == "."]
	}
	for _, src := range srcs {
		matches, err := filepath.Glob(filepath.Join(c.root, filepath.FromSlash(src)))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range matches {
			rel, _ := filepath.Rel(c.root, m)
			if c.excluded(rel) {
				continue
			}
			info, err := os.Stat(m)
			if err != nil {
				t.Fatal(err)
			}
			if info.IsDir() {
				n += c.copyTree(t, m, filepath.Join(stageRoot, dest))
				continue
			}
			target := filepath.Join(stageRoot, dest)
			if strings.HasSuffix(dest, "/") {
				target = filepath.Join(target, filepath.Base(m))
			}
			copyFile(t, m, target)
			n++
		}
		if n == 0 {
			t.Fatalf("COPY %s: no file of the build context matches (after .dockerignore)", src)
		}
	}
}

func (c buildContext) copyTree(t testing.TB, dir, target string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.root, p)
		if c.excluded(rel) {
			if d.IsDir() {
				// A negated pattern could bring back something below; none of ours does.
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		sub, _ := filepath.Rel(dir, p)
		copyFile(t, p, filepath.Join(target, sub))
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// buildStages runs every named stage of df in dir and returns the final image's files that
// come from them: image path -> host path.
func buildStages(t testing.TB, ctx buildContext, df dockerfile, dir string) map[string]string {
	t.Helper()
	roots := map[string]string{}
	for _, s := range df.stages[:len(df.stages)-1] {
		root := filepath.Join(dir, s.name)
		roots[s.name] = root
		workdir := "/"
		env := map[string]string{}
		for _, in := range s.ins {
			switch in.cmd {
			case "WORKDIR":
				workdir = path.Join(workdir, in.args)
				if err := os.MkdirAll(filepath.Join(root, workdir), 0o755); err != nil {
					t.Fatal(err)
				}
			case "ENV":
				for _, kv := range strings.Fields(in.args) {
					k, v, _ := strings.Cut(kv, "=")
					env[k] = v
				}
			case "COPY":
				if in.flag("from") != "" {
					t.Fatalf("%s: stage %s copies from another stage; not emulated", df.path, s.name)
				}
				ctx.copyInto(t, in, root, workdir)
			case "RUN":
				cmd := exec.Command("sh", "-ec", in.args)
				cmd.Dir = filepath.Join(root, workdir)
				cmd.Env = stageEnv(env, s.args)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: stage %s: RUN %s: %v\n%s", df.path, s.name, in.args, err, out)
				}
			}
		}
	}
	files := map[string]string{}
	for _, in := range df.final().all("COPY") {
		from := in.flag("from")
		f := strings.Fields(in.args)
		if from == "" || len(f) != 2 {
			t.Fatalf("%s: the final stage copies %q: only single files from build stages are expected", df.path, in.args)
		}
		host := filepath.Join(roots[from], filepath.FromSlash(f[0]))
		if _, err := os.Stat(host); err != nil {
			t.Fatalf("%s: COPY --from=%s %s: the stage did not produce it: %v", df.path, from, f[0], err)
		}
		files[f[1]] = host
	}
	return files
}

// stageEnv is the host environment (Go caches, proxy) without workspace overrides, plus the
// stage's ENV.
func stageEnv(env, args map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GOWORK" || k == "GOFLAGS" || k == "CGO_ENABLED" {
			continue
		}
		_, inEnv := env[k]
		_, inArgs := args[k]
		if !inEnv && !inArgs {
			out = append(out, kv)
		}
	}
	for k, v := range args {
		if _, ok := env[k]; !ok {
			out = append(out, k+"="+v)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

var (
	buildOnce sync.Map // service -> *builtImage
	buildDir  string
	buildMu   sync.Mutex
)

type builtImage struct {
	once  sync.Once
	files map[string]string
	err   string
}

// serviceBinary builds the service's image stages once per test binary and returns the host
// path of the binary the image runs (its ENTRYPOINT).
func serviceBinary(t testing.TB, service string) string {
	t.Helper()
	v, _ := buildOnce.LoadOrStore(service, &builtImage{})
	img := v.(*builtImage)
	img.once.Do(func() {
		rec := &recorder{TB: t}
		func() {
			defer func() { _ = recover() }() // t.Fatal of a recorder ends here, not in the test
			root := repoRoot(t)
			df := parseDockerfile(rec, filepath.Join(root, "Dockerfile"), imageBuildArgs(service))
			img.files = buildStages(rec, newBuildContext(rec, root), df, filepath.Join(sharedBuildDir(rec), service))
		}()
		img.err = rec.msg
	})
	if img.err != "" {
		t.Fatalf("building the %s image stages: %s", service, img.err)
	}
	bin, ok := img.files["/service"]
	if !ok {
		t.Fatalf("the %s image has no /service", service)
	}
	return bin
}

// The version and revision the test images are stamped with (make images passes git describe).
const (
	imageVersion  = "v9.8.7-e2e"
	imageRevision = "0123456789abcdef0123456789abcdef01234567"
)

// imageBuildArgs are the --build-arg values of service's image (as make images and
// compose.yaml pass them).
func imageBuildArgs(service string) map[string]string {
	args := map[string]string{"SERVICE": service, "VERSION": imageVersion, "REVISION": imageRevision}
	for _, s := range services {
		if s.name == service {
			args["PORT"] = fmt.Sprint(s.port)
		}
	}
	return args
}

// sharedBuildDir lives as long as the test binary (TestMain removes it).
func sharedBuildDir(t testing.TB) string {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDir == "" {
		d, err := os.MkdirTemp("", "e2e-images-")
		if err != nil {
			t.Fatal(err)
		}
		buildDir = d
	}
	return buildDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// recorder turns Fatal into a recorded message and a panic, so a build shared by several
// tests reports its failure to each of them.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.msg = fmt.Sprint(args...)
	panic(r)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

func TestDockerfileBuildsEachServiceAsAStaticNonRootBinaryFromPinnedBases(t *testing.T) {
	root := repoRoot(t)
	goWork, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range services {
		t.Run(s.name, func(t *testing.T) {
			df := parseDockerfile(t, filepath.Join(root, "Dockerfile"), imageBuildArgs(s.name))
			if len(df.stages) < 2 {
				t.Fatalf("%d stage(s): the image must be multi-stage", len(df.stages))
			}
			for _, st := range df.stages {
				if !pinned(st.image) || !strings.Contains(st.image, "@sha256:") {
					t.Errorf("base image %q is not pinned to a digest", st.image)
				}
			}
			final := df.final()
			if !strings.HasPrefix(final.image, "gcr.io/distroless/static") && final.image != "scratch" {
				t.Errorf("runtime image %s: want distroless static or scratch", final.image)
			}
			if len(final.all("RUN")) > 0 {
				t.Error("the runtime stage runs commands: it must only copy the binary")
			}
			users := final.all("USER")
			if len(users) == 0 {
				t.Fatal("the runtime stage sets no USER")
			}
			uid, _, _ := strings.Cut(users[len(users)-1].args, ":")
			if uid == "0" || uid == "root" || !regexp.MustCompile(`^\d+$`).MatchString(uid) {
				t.Errorf("USER %s: want a numeric non-root uid (Kubernetes runAsNonRoot verifies it)", users[len(users)-1].args)
			}
			if ep := final.all("ENTRYPOINT"); len(ep) != 1 || strings.Join(jsonArgs(ep[0].args), " ") != "/service" {
				t.Errorf("ENTRYPOINT = %v, want [\"/service\"]", ep)
			}
			if cmd := final.all("CMD"); len(cmd) != 1 || strings.Join(jsonArgs(cmd[0].args), " ") != "serve" {
				t.Errorf("CMD = %v, want [\"serve\"]", cmd)
			}
			// The health check probes /readyz on HTTP_ADDR, which the image sets to the API port.
			if hc := final.all("HEALTHCHECK"); len(hc) != 1 || !strings.HasSuffix(hc[0].args, `CMD ["/healthprobe"]`) {
				t.Errorf("HEALTHCHECK = %v, want the probe of HTTP_ADDR's /readyz", hc)
			}
			var env, expose string
			for _, in := range final.all("ENV") {
				env += in.args + " "
			}
			for _, in := range final.all("EXPOSE") {
				expose += in.args + " "
			}
			if !strings.Contains(env, fmt.Sprintf("HTTP_ADDR=:%d ", s.port)) || !strings.Contains(expose, fmt.Sprint(s.port)) {
				t.Errorf("ENV %q EXPOSE %q: want HTTP_ADDR=:%d and the port exposed", env, expose, s.port)
			}
			if def := helpDefaults(t, serviceBinary(t, s.name))["HTTP_ADDR"]; def != fmt.Sprintf(":%d", s.port) {
				t.Errorf("the binary's HTTP_ADDR default %q is not the PORT build argument %d", def, s.port)
			}
			var labels string
			for _, in := range final.all("LABEL") {
				labels += in.args + " "
			}
			for _, want := range []string{`org.opencontainers.image.title="` + s.name + `"`,
				`org.opencontainers.image.version="` + imageVersion + `"`, `org.opencontainers.image.revision="` + imageRevision + `"`} {
				if !strings.Contains(labels, want) {
					t.Errorf("the image labels lack %s: %s", want, labels)
				}
			}
			// The build stage holds the whole workspace's go.mod files, so go.work resolves.
			build := df.stages[0]
			var copied []string
			for _, in := range build.all("COPY") {
				copied = append(copied, strings.Fields(in.args)[0])
			}
			for _, m := range regexp.MustCompile(`(?m)^\s*\./(\S+)\s*$`).FindAllStringSubmatch(string(goWork), -1) {
				if !containsString(copied, m[1]+"/go.*") {
					t.Errorf("the build stage does not copy %s/go.* (go.work uses it)", m[1])
				}
			}
			var runs string
			for _, in := range build.all("RUN") {
				runs += os.Expand(in.args, func(k string) string { return build.args[k] }) + "\n"
			}
			for _, want := range []string{"go build", "-trimpath", `-ldflags="-s -w `, "./services/" + s.name + "/cmd/" + s.name,
				"-X github.com/videotpl/platform/pkg/buildinfo.version=" + imageVersion,
				"-X github.com/videotpl/platform/pkg/buildinfo.revision=" + imageRevision} {
				if !strings.Contains(runs, want) {
					t.Errorf("the build stage's RUN lacks %q", want)
				}
			}

			bin := serviceBinary(t, s.name)
			out, err := exec.Command("file", bin).CombinedOutput()
			if err == nil && !strings.Contains(string(out), "statically linked") {
				t.Errorf("the binary is not static: %s", out)
			}
			if out, err := exec.Command("go", "version", "-m", bin).CombinedOutput(); err != nil {
				t.Fatal(err)
			} else if !strings.Contains(string(out), "CGO_ENABLED=0") || !strings.Contains(string(out), "-trimpath=true") {
				t.Errorf("the binary was not built with CGO_ENABLED=0 and -trimpath:\n%s", out)
			}
			if _, ok := serviceFiles(t, s.name)["/healthprobe"]; !ok {
				t.Error("the image has no /healthprobe for its HEALTHCHECK")
			}
		})
	}
}

// Without SERVICE the build stops at once with what to pass.
func TestDockerfileBuildAsksForItsService(t *testing.T) {
	root := repoRoot(t)
	df := parseDockerfile(t, filepath.Join(root, "Dockerfile"), map[string]string{})
	build := df.stages[0]
	first := build.all("RUN")[0]
	cmd := exec.Command("sh", "-ec", first.args)
	cmd.Env = stageEnv(nil, build.args)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "SERVICE") {
		t.Errorf("the build without SERVICE: %v %s; want a failure naming the argument", err, out)
	}
}

func serviceFiles(t testing.TB, service string) map[string]string {
	serviceBinary(t, service)
	v, _ := buildOnce.Load(service)
	return v.(*builtImage).files
}

// pinned reports whether an image reference names a tag other than latest, or a digest.
func pinned(image string) bool {
	if image == "scratch" || strings.Contains(image, "@sha256:") {
		return true
	}
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return false
	}
	tag := image[i+1:]
	return tag != "" && tag != "latest"
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDockerfileContextKeepsWhatTheBuildNeedsAndNothingElse(t *testing.T) {
	ctx := newBuildContext(t, repoRoot(t))
	for _, c := range []struct {
		path     string
		excluded bool
	}{
		{"go.work", false},
		{"pkg/bus/outbox.go", false},
		{"gen/content/client.gen.go", false},
		{"services/content/migrations/embed.go", false},
		{"e2e/go.mod", false},
		{"specs/embed.go", false},
		{"specs/openapi/content.yaml", false},
		{"specs/asyncapi/events.yaml", true},
		{"specs/seeds_test.go", true},
		{"tools/healthprobe/main.go", false},
		{"node_modules/typescript/package.json", true},
		{"gen/ts/content/src/schema.ts", true},
		{"pkg/bus/outbox_test.go", true},
		{"e2e/manifests_test.go", true},
		{"services/content/deploy/base/deployment.yaml", true},
		{"deploy/components/service/deployment.yaml", true},
		{"Dockerfile", true},
		{".git/HEAD", true},
		{"bin/content", true},
		{".data/dev.env", true},
	} {
		if got := ctx.excluded(c.path); got != c.excluded {
			t.Errorf("%s excluded = %v, want %v", c.path, got, c.excluded)
		}
	}
}
