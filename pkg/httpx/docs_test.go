package httpx

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The Redoc bundle is committed so that `go build` needs no npm; `make docs-assets` (run by
// `make generate`) copies it from the pinned npm package. When node_modules is there, the copy
// must be the package's.
func TestTheEmbeddedRedocBundleIsThePinnedPackages(t *testing.T) {
	pkg := filepath.Join("..", "..", "node_modules", "redoc", "bundles")
	if _, err := os.Stat(pkg); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node_modules/redoc is missing (run `make tools`): %v", err)
		}
		t.Skipf("node_modules/redoc is not installed (`make tools`): %v", err)
	}
	for _, name := range []string{"redoc.standalone.js", "redoc.standalone.js.LICENSE.txt"} {
		want, err := os.ReadFile(filepath.Join(pkg, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := docsAssets.ReadFile("docsassets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("pkg/httpx/docsassets/%s differs from node_modules/redoc/bundles/%s: run `make docs-assets` and commit it", name, name)
		}
	}
}
