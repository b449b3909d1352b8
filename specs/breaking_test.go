package specs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBreakingCheckCatchesARemovedRequiredField runs scripts/breaking.sh (what `make
// breaking` runs) against HEAD with a copy of the specs: unchanged it passes; with a
// required response field removed, or a required event field removed, it fails and names it.
func TestBreakingCheckCatchesARemovedRequiredField(t *testing.T) {
	root := repoRoot()
	if _, err := os.Stat(filepath.Join(root, "bin", "tools", "oasdiff")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bin/tools/oasdiff missing: run make tools")
		}
		t.Skip("bin/tools/oasdiff missing: run make tools")
	}
	if err := exec.Command("git", "-C", root, "cat-file", "-e", "HEAD:specs/openapi/content.yaml").Run(); err != nil {
		t.Skip("specs are not committed yet")
	}
	files := []string{"specs/openapi/content.yaml", "specs/openapi/orgboard.yaml", "specs/openapi/renderevents.yaml", "specs/asyncapi/events.yaml"}
	copyHead := func(t *testing.T) string {
		dir := t.TempDir()
		for _, f := range files {
			out, err := exec.Command("git", "-C", root, "show", "HEAD:"+f).Output()
			if err != nil {
				t.Fatalf("git show %s: %v", f, err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	run := func(newSpecs string) (string, error) {
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "breaking.sh"))
		cmd.Env = append(os.Environ(), "BASE=HEAD", "NEW_SPECS="+newSpecs)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	edit := func(t *testing.T, path, old, new string) {
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

	t.Run("unchanged specs pass", func(t *testing.T) {
		if out, err := run(copyHead(t)); err != nil {
			t.Fatalf("want no breaking change, got %v:\n%s", err, out)
		}
	})
	t.Run("a required response field removed fails", func(t *testing.T) {
		dir := copyHead(t)
		spec := filepath.Join(dir, "specs/openapi/content.yaml")
		// TemplateCard.slug is required in every catalog response; drop it from the schema.
		edit(t, spec, "required: [container_id, slug, name,", "required: [container_id, name,")
		removeProperty(t, spec, "    TemplateCard:", "        slug:")
		out, err := run(dir)
		if err == nil {
			t.Fatalf("want make breaking to fail, it passed:\n%s", out)
		}
		if !strings.Contains(out, "slug") || !strings.Contains(out, "content.yaml") {
			t.Fatalf("failure does not name the field and spec:\n%s", out)
		}
	})
	t.Run("a required event field removed fails", func(t *testing.T) {
		dir := copyHead(t)
		spec := filepath.Join(dir, "specs/asyncapi/events.yaml")
		removeProperty(t, spec, "    RenderJobCompletedV1Payload:", "        output_url:")
		out, err := run(dir)
		if err == nil {
			t.Fatalf("want make breaking to fail, it passed:\n%s", out)
		}
		if !strings.Contains(out, "output_url") {
			t.Fatalf("failure does not name output_url:\n%s", out)
		}
	})
	t.Run("a new major version allows it", func(t *testing.T) {
		dir := copyHead(t)
		spec := filepath.Join(dir, "specs/openapi/content.yaml")
		removeProperty(t, spec, "    TemplateCard:", "        slug:")
		edit(t, spec, "  version: 1.0.0", "  version: 2.0.0")
		if out, err := run(dir); err != nil {
			t.Fatalf("a major version change should allow the break: %v\n%s", err, out)
		}
	})
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
