package specs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckGeneratedNamesEveryFileThatIsNotGenerated runs the check-generated script of this
// checkout (what `make check-generated` runs) once in a clone of the repository whose gen/ holds
// a committed hand edit, a deleted file, an untracked extra and an ignored extra: it fails and
// names exactly those four, and not the SDK build output that `make sdk` leaves under gen/.
func TestCheckGeneratedNamesEveryFileThatIsNotGenerated(t *testing.T) {
	t.Parallel()
	root := repoRoot()
	requireBuiltTool(t, root, "oapi-codegen")
	requireBuiltTool(t, root, "sqlc")
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "openapi-typescript")); err != nil {
		t.Skip("node_modules missing: run make tools")
	}
	if err := exec.Command("git", "-C", root, "cat-file", "-e", "HEAD:gen/go.mod").Run(); err != nil {
		t.Skip("gen/ is not committed yet")
	}
	clone := t.TempDir()
	gitIn(t, "", "clone", "-q", root, clone)
	gitIn(t, clone, "checkout", "-q", "--detach", gitIn(t, root, "rev-parse", "HEAD"))
	write := func(rel, content string) {
		t.Helper()
		path := filepath.Join(clone, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(t, filepath.Join(clone, "gen/content/types.gen.go"), "package content", "package content\n\n// tuned by hand")
	gitIn(t, clone, "-c", "user.name=gen", "-c", "user.email=gen@example.invalid", "commit", "-qam", "hand edit")
	if err := os.Remove(filepath.Join(clone, "gen/db/content/db.go")); err != nil {
		t.Fatal(err)
	}
	write("gen/content/notes.txt", "an untracked extra\n")
	write("gen/content/debug.out", "an extra that .gitignore hides\n")
	write("gen/ts/content/dist/index.js", "build output of make sdk\n")

	cmd := exec.Command("bash", filepath.Join(root, "scripts", "check-generated.sh"))
	cmd.Dir = clone
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("want check-generated to fail, it passed:\n%s", out)
	}
	var reported []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "gen/") && strings.Contains(line, ": ") {
			reported = append(reported, line)
		}
	}
	want := []string{
		"gen/db/content/db.go: missing (make generate writes it)",
		"gen/content/debug.out: extra (make generate does not write it)",
		"gen/content/notes.txt: extra (make generate does not write it)",
		"gen/content/types.gen.go: differs from what make generate writes",
	}
	if strings.Join(reported, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reported:\n%s\nwant:\n%s\nfull output:\n%s", strings.Join(reported, "\n"), strings.Join(want, "\n"), out)
	}
	if !strings.Contains(string(out), "+// tuned by hand") {
		t.Fatalf("want the hand edit shown as a diff:\n%s", out)
	}
}
