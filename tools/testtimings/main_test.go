package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stream is what `go test -json` writes for a passing package, a failing one (a failing
// subtest inside a test) and a package that does not build.
const stream = `{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"ex/ok"}
{"Time":"2026-01-01T00:00:00Z","Action":"run","Package":"ex/ok","Test":"TestFast"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"ex/ok","Test":"TestFast","Output":"=== RUN   TestFast\n"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"ex/ok","Test":"TestFast","Output":"    a_test.go:3: quiet when it passes\n"}
{"Time":"2026-01-01T00:00:01Z","Action":"pass","Package":"ex/ok","Test":"TestFast","Elapsed":0.5}
{"Time":"2026-01-01T00:00:01Z","Action":"output","Package":"ex/ok","Output":"PASS\n"}
{"Time":"2026-01-01T00:00:01Z","Action":"output","Package":"ex/ok","Output":"ok  \tex/ok\t1.000s\n"}
{"Time":"2026-01-01T00:00:01Z","Action":"pass","Package":"ex/ok","Elapsed":1}
{"Time":"2026-01-01T00:00:00Z","Action":"run","Package":"ex/bad","Test":"TestSlow"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"ex/bad","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"ex/bad","Test":"TestSlow/sub","Output":"    b_test.go:9: boom\n"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"ex/bad","Test":"TestSlow/sub","Output":"--- FAIL: TestSlow/sub (2.00s)\n"}
{"Time":"2026-01-01T00:00:00Z","Action":"fail","Package":"ex/bad","Test":"TestSlow/sub","Elapsed":2}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"ex/bad","Test":"TestSlow","Output":"--- FAIL: TestSlow (3.00s)\n"}
{"Time":"2026-01-01T00:00:03Z","Action":"fail","Package":"ex/bad","Test":"TestSlow","Elapsed":3}
{"Time":"2026-01-01T00:00:03Z","Action":"output","Package":"ex/bad","Output":"FAIL\n"}
{"Time":"2026-01-01T00:00:03Z","Action":"output","Package":"ex/bad","Output":"FAIL\tex/bad\t3.100s\n"}
{"Time":"2026-01-01T00:00:04Z","Action":"fail","Package":"ex/bad","Elapsed":3.1}
{"ImportPath":"ex/broken [ex/broken.test]","Action":"build-output","Output":"broken.go:1: undefined: x\n"}
{"Time":"2026-01-01T00:00:04Z","Action":"output","Package":"ex/broken","Output":"FAIL\tex/broken [build failed]\n"}
{"Time":"2026-01-01T00:00:04Z","Action":"fail","Package":"ex/broken","Elapsed":0}
`

func TestPrintShowsWhatPlainGoTestShows(t *testing.T) {
	var out strings.Builder
	if err := printPlain(strings.NewReader(stream), &out); err != nil {
		t.Fatal(err)
	}
	want := "ok  \tex/ok\t1.000s\n" +
		"    b_test.go:9: boom\n--- FAIL: TestSlow/sub (2.00s)\n--- FAIL: TestSlow (3.00s)\n" +
		"FAIL\nFAIL\tex/bad\t3.100s\n" +
		"broken.go:1: undefined: x\nFAIL\tex/broken [build failed]\n"
	if out.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestSummaryListsPackagesAndTopLevelTestsSlowestFirst(t *testing.T) {
	f := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(f, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := summary([]string{f}, 10, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"       3.1s  ex/bad  FAIL\n       1.0s  ex/ok\n       0.0s  ex/broken  FAIL\n",
		"4.1s  sum of 3 packages; wall time of the run 4.0s",
		"      3.00s  ex/bad TestSlow  FAIL\n      0.50s  ex/ok TestFast\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "TestSlow/sub") {
		t.Errorf("a subtest is listed among the top-level tests:\n%s", text)
	}
}
