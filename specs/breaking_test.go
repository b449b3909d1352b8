package specs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// gateSpecs are the contracts the spec-change gate compares.
var gateSpecs = []string{"specs/openapi/content.yaml", "specs/openapi/orgboard.yaml", "specs/openapi/renderevents.yaml", "specs/asyncapi/events.yaml"}

// TestSpecChangeGate runs the gate (scripts/breaking.sh, what `make breaking` and `make test`
// run) and `make changelog` (scripts/changelog.sh) of this checkout in a fresh clone of the
// repository, as a CI checkout of a branch has it: origin/main at this HEAD, no local main, a
// new branch holding the change.
func TestSpecChangeGate(t *testing.T) {
	t.Parallel()
	root := repoRoot()
	requireBuiltTool(t, root, "oasdiff")
	if err := exec.Command("git", "-C", root, "cat-file", "-e", "HEAD:specs/openapi/content.yaml").Run(); err != nil {
		t.Skip("specs are not committed yet")
	}
	head := gitIn(t, root, "rev-parse", "HEAD")
	short := head[:12]
	clone := t.TempDir()
	gitIn(t, "", "clone", "-q", "--no-checkout", root, clone)
	gitIn(t, clone, "update-ref", "refs/remotes/origin/main", head)
	gitIn(t, clone, "checkout", "-q", "-b", "spec-change", head)
	for _, branch := range strings.Fields(gitIn(t, clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/")) {
		if branch != "spec-change" {
			gitIn(t, clone, "branch", "-q", "-D", branch)
		}
	}
	script := func(t *testing.T, name string, env ...string) (string, bool) {
		t.Helper()
		cmd := exec.Command("bash", filepath.Join(root, "scripts", name))
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	gate := func(t *testing.T, env ...string) (string, bool) { t.Helper(); return script(t, "breaking.sh", env...) }
	startOver := func(t *testing.T) {
		t.Helper()
		gitIn(t, clone, "reset", "-q", "--hard", head)
		gitIn(t, clone, "clean", "-qfd")
	}
	content := filepath.Join(clone, "specs/openapi/content.yaml")
	events := filepath.Join(clone, "specs/asyncapi/events.yaml")
	// TemplateCard.slug is required in every catalog response (GET /templates among them).
	removeSlug := func(t *testing.T) {
		edit(t, content, "required: [container_id, slug, name,", "required: [container_id, name,")
		removeProperty(t, content, "    TemplateCard:", "        slug:")
	}

	t.Run("a branch removing a required response property or event field fails, naming the spec, the operation and the field", func(t *testing.T) {
		startOver(t)
		removeSlug(t)
		removeProperty(t, events, "    RenderJobCompletedV1Payload:", "        output_url:")
		gitIn(t, clone, "-c", "user.name=gate", "-c", "user.email=gate@example.invalid", "commit", "-qam", "drop slug and output_url")
		out, ok := gate(t)
		if ok {
			t.Fatalf("want the gate to fail, it passed:\n%s", out)
		}
		wantLine(t, out, "specs/openapi/content.yaml: breaking change: GET /templates: ", "`data/items/slug`")
		wantLine(t, out, "specs/asyncapi/events.yaml: breaking change: ", "output_url removed")
		wantLine(t, out, "specs/openapi/orgboard.yaml: no breaking change against "+short)
	})

	t.Run("a compatible change passes, each spec named", func(t *testing.T) {
		startOver(t)
		edit(t, content, "        slug:\n          type: string\n", "        slug:\n          type: string\n        subtitle:\n          type: string\n")
		edit(t, events, "        output_url:\n          type: string\n", "        output_url:\n          type: string\n        poster_url:\n          type: string\n")
		out, ok := gate(t)
		if !ok {
			t.Fatalf("want an added optional property to pass:\n%s", out)
		}
		for _, spec := range gateSpecs {
			wantLine(t, out, spec+": no breaking change against "+short)
		}
	})

	t.Run("a first upper bound on a request property or an event field passes as a warning, a lowered bound fails", func(t *testing.T) {
		startOver(t)
		edit(t, content, "        container_id:\n          type: string\n          format: uuid\n        folder_id:",
			"        container_id:\n          type: string\n          format: uuid\n          maxLength: 36\n        folder_id:")
		edit(t, events, "        render_job_id:\n          type: string\n          format: uuid\n        saved_project_id:",
			"        render_job_id:\n          type: string\n          format: uuid\n          maxLength: 36\n        saved_project_id:")
		out, ok := gate(t)
		if !ok {
			t.Fatalf("want a first bound to pass as a warning:\n%s", out)
		}
		wantLine(t, out, "specs/openapi/content.yaml: possibly breaking (a warning, not failing): POST ", "`container_id`", "maxLength", "`36`")
		wantLine(t, out, "specs/asyncapi/events.yaml: possibly breaking (a warning, not failing): ", "RenderJobQueuedV1Payload.render_job_id: maxLength set to 36")
		wantLine(t, out, "specs/openapi/content.yaml: no breaking change against "+short)
		wantLine(t, out, "specs/asyncapi/events.yaml: no breaking change against "+short)

		edit(t, content, "kept by the server.\n          maxLength: 2000\n", "kept by the server.\n          maxLength: 1000\n")
		edit(t, events, "        region:\n          type: string\n          maxLength: 200\n        original_project_id:", "        region:\n          type: string\n          maxLength: 100\n        original_project_id:")
		out, ok = gate(t)
		if ok {
			t.Fatalf("want a lowered bound to fail, the gate passed:\n%s", out)
		}
		wantLine(t, out, "specs/openapi/content.yaml: breaking change: POST ", "`reason`", "`1000`")
		wantLine(t, out, "specs/asyncapi/events.yaml: breaking change: ", "RenderJobQueuedV1Payload.region: maxLength lowered from 200 to 100")
	})

	t.Run("a new major version lists its breaking changes and passes only with its changelog section", func(t *testing.T) {
		startOver(t)
		removeSlug(t)
		major := raiseMajor(t, content)
		out, ok := gate(t)
		if ok {
			t.Fatalf("want the gate to fail without the changelog section, it passed:\n%s", out)
		}
		wantLine(t, out, "specs/openapi/content.yaml: allowed breaking change: GET /templates: ", "`data/items/slug`")
		wantLine(t, out, "specs/openapi/content.yaml: ", "'## content "+major+"'", "specs/CHANGELOG.md")

		if out, ok := script(t, "changelog.sh"); !ok {
			t.Fatalf("make changelog failed:\n%s", out)
		}
		written, err := os.ReadFile(filepath.Join(clone, "specs/CHANGELOG.md"))
		if err != nil {
			t.Fatal(err)
		}
		wantLine(t, string(written), "## content "+major)
		wantLine(t, string(written), "- GET /templates: ", "`data/items/slug`", "(breaking)")

		out, ok = gate(t)
		if !ok {
			t.Fatalf("want the gate to pass with the changelog section:\n%s", out)
		}
		wantLine(t, out, "specs/openapi/content.yaml: allowed breaking change: GET /templates: ", "`data/items/slug`")
	})

	t.Run("a detached HEAD in a clone with main and origin/main compares with their merge-base", func(t *testing.T) {
		startOver(t)
		gitIn(t, clone, "branch", "-q", "main", head)
		gitIn(t, clone, "checkout", "-q", "--detach")
		removeSlug(t)
		out, ok := gate(t)
		if ok {
			t.Fatalf("want the gate to fail, it passed:\n%s", out)
		}
		wantLine(t, out, "specs/openapi/content.yaml: breaking change: GET /templates: ", "`data/items/slug`")
		wantLine(t, out, "specs/openapi/orgboard.yaml: no breaking change against "+short)
	})

	t.Run("with no base the gate fails and says how to give one", func(t *testing.T) {
		startOver(t)
		gitIn(t, clone, "checkout", "-q", "-B", "spec-change", head)
		gitIn(t, clone, "update-ref", "-d", "refs/heads/main")
		gitIn(t, clone, "update-ref", "-d", "refs/remotes/origin/main")
		out, ok := gate(t)
		if ok || !strings.Contains(out, "BASE=") {
			t.Fatalf("want a failure that names BASE=, got ok=%v:\n%s", ok, out)
		}
		if out, ok := gate(t, "BASE="+head); !ok {
			t.Fatalf("want BASE=%s to give the base:\n%s", head, out)
		}
	})
}

// requireBuiltTool fails in CI, and skips elsewhere, when `make tools` has not built bin/tools/<name>.
func requireBuiltTool(t *testing.T, root, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "bin", "tools", name)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bin/tools/%s missing: run make tools", name)
		}
		t.Skipf("bin/tools/%s missing: run make tools", name)
	}
}

// gitIn runs git in dir ("" for the current directory) and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// wantLine fails unless one line of out starts with prefix and contains every part.
func wantLine(t *testing.T, out, prefix string, parts ...string) {
	t.Helper()
lines:
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue lines
			}
		}
		return
	}
	t.Fatalf("want a line starting %q containing %q in:\n%s", prefix, parts, out)
}

// edit replaces the first old in the file at path with new.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// raiseMajor raises the major version (info.version) of the spec at path and returns the new
// version, e.g. 1.4.0 -> 2.0.0.
func raiseMajor(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^  version: (\d+)\.\d+\.\d+$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no info.version", path)
	}
	major, _ := strconv.Atoi(string(m[1]))
	next := strconv.Itoa(major+1) + ".0.0"
	edit(t, path, string(m[0]), "  version: "+next)
	return next
}

// removeProperty deletes the block of a property (its line and the more-indented lines
// after it) inside the schema that starts at the schema line.
func removeProperty(t *testing.T, path, schemaLine, propLine string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := -1
	for i, l := range lines {
		if l == schemaLine {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("%s: no line %q", path, schemaLine)
	}
	for i := start + 1; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], propLine) {
			continue
		}
		indent := len(propLine) - len(strings.TrimLeft(propLine, " "))
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || len(lines[j])-len(strings.TrimLeft(lines[j], " ")) > indent) {
			j++
		}
		lines = append(lines[:i], lines[j:]...)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s: no property %q after %q", path, propLine, schemaLine)
}
