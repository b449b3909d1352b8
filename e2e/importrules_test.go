package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportRulesBite plants imports that break the skeleton's rules in a small module laid
// out like a service, lints it with the repository's own .golangci.yml, and expects depguard
// to name each one while leaving the allowed imports alone. `make lint` runs the same rules
// over the real services, so a rule that stopped biting would show here.
func TestImportRulesBite(t *testing.T) {
	root := repoRoot(t)
	lint := filepath.Join(root, "bin", "tools", "golangci-lint")
	if _, err := os.Stat(lint); err != nil {
		t.Fatalf("%s is missing: run 'make tools' first", lint)
	}

	dir := t.TempDir()
	svc := filepath.Join(dir, "services", "content")
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(svc, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const mod = "github.com/videotpl/platform/services/content"
	write("go.mod", "module "+mod+"\n\ngo 1.26\n\nrequire github.com/videotpl/platform/services/orgboard v0.0.0\n\n"+
		"replace github.com/videotpl/platform/services/orgboard => ./orgboard\n")
	write("orgboard/go.mod", "module github.com/videotpl/platform/services/orgboard\n\ngo 1.26\n")
	write("orgboard/board/board.go", "// Package board stands in for another service's code.\npackage board\n\n// Name names it.\nconst Name = \"board\"\n")
	write("internal/store/store.go", "// Package store stands in for the adapters.\npackage store\n\n// Name names it.\nconst Name = \"store\"\n")
	write("internal/domain/domain.go", "// Package domain imports what it must not.\npackage domain\n\n"+
		"import \"github.com/videotpl/platform/services/content/internal/store\"\n\n// Name names it.\nconst Name = store.Name\n")
	write("internal/app/app.go", "// Package app imports the adapters and another service.\npackage app\n\nimport (\n"+
		"\t\"github.com/videotpl/platform/services/content/internal/domain\"\n"+
		"\t\"github.com/videotpl/platform/services/content/internal/store\"\n"+
		"\t\"github.com/videotpl/platform/services/orgboard/board\"\n)\n\n"+
		"// Names lists them.\nvar Names = []string{domain.Name, store.Name, board.Name}\n")

	cmd := exec.Command(lint, "run", "--config", filepath.Join(root, ".golangci.yml"), "--enable-only", "depguard", "--allow-parallel-runners", "./...")
	cmd.Dir = svc
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("lint passed over planted violations:\n%s", out)
	}
	text := string(out)
	for _, want := range []string{
		"import 'github.com/videotpl/platform/services/content/internal/store' is not allowed from list 'content-domain'",
		"import 'github.com/videotpl/platform/services/content/internal/store' is not allowed from list 'content-app'",
		"import 'github.com/videotpl/platform/services/orgboard/board' is not allowed from list 'content-alone'",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lint output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "internal/domain' is not allowed") {
		t.Errorf("app importing domain was refused, but that is the rule's direction:\n%s", text)
	}
}
