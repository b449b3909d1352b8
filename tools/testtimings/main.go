// Command testtimings reads the event stream of `go test -json` and either prints it as plain
// `go test` does (print) or says where the time went (summary): each package's time, the
// slowest tests, and the run's wall time beside the sum of the package times.
//
//	go test -json ./... | tee bin/test-results.json | go run ./testtimings print
//	go run ./testtimings summary [-top 25] ../bin/test-results.json
//
// scripts/test.sh records every run in bin/test-results.json this way; `make test-timings`
// prints the summary of the last one.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json), build events included.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "print":
		err = printPlain(os.Stdin, os.Stdout)
	case "summary":
		fs := flag.NewFlagSet("summary", flag.ExitOnError)
		top := fs.Int("top", 25, "how many of the slowest tests to list")
		_ = fs.Parse(os.Args[2:])
		err = summary(fs.Args(), *top, os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimings:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testtimings print < go-test.json | testtimings summary [-top N] go-test.json...")
	os.Exit(2)
}

// decode calls fn for every event of r; a line that is not JSON (a build tool's own output)
// is passed on as package-less output.
func decode(r io.Reader, fn func(event)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fn(event{Action: "output", Output: sc.Text() + "\n"})
			continue
		}
		fn(e)
	}
	return sc.Err()
}

// printPlain writes what `go test` without -json writes for a list of packages: a passing
// package's "ok" line; a failing test's output (its subtests' within it, in order); a failing
// package's output and FAIL line; build errors as they come.
func printPlain(r io.Reader, w io.Writer) error {
	type line struct{ test, text string }
	type pkgState struct {
		out   strings.Builder // package-level output
		lines []line          // test output, printed if its top-level test fails
	}
	pkgs := map[string]*pkgState{}
	state := func(p string) *pkgState {
		s := pkgs[p]
		if s == nil {
			s = &pkgState{}
			pkgs[p] = s
		}
		return s
	}
	// flush prints (or drops) the lines of test and its subtests.
	flush := func(s *pkgState, test string, print bool) {
		kept := s.lines[:0]
		for _, l := range s.lines {
			if l.test == test || strings.HasPrefix(l.test, test+"/") {
				if print && !strings.HasPrefix(l.text, "=== ") {
					fmt.Fprint(w, l.text)
				}
				continue
			}
			kept = append(kept, l)
		}
		s.lines = kept
	}
	return decode(r, func(e event) {
		switch {
		case e.Action == "build-output" || e.Package == "":
			fmt.Fprint(w, e.Output)
		case e.Test != "":
			s := state(e.Package)
			top := !strings.Contains(e.Test, "/")
			switch {
			case e.Action == "output":
				s.lines = append(s.lines, line{e.Test, e.Output})
			case top && e.Action == "fail":
				flush(s, e.Test, true)
			case top && (e.Action == "pass" || e.Action == "skip"):
				flush(s, e.Test, false)
			}
		default:
			s := state(e.Package)
			switch e.Action {
			case "output":
				s.out.WriteString(e.Output)
			case "pass", "skip":
				// Only the summary line ("ok  pkg 1.2s", "?  pkg [no test files]").
				lines := strings.SplitAfter(strings.TrimRight(s.out.String(), "\n"), "\n")
				if last := lines[len(lines)-1]; last != "" {
					fmt.Fprintln(w, strings.TrimRight(last, "\n"))
				}
				delete(pkgs, e.Package)
			case "fail":
				// A test binary that crashed leaves its running tests' output unprinted.
				for _, l := range s.lines {
					if !strings.HasPrefix(l.text, "=== ") {
						fmt.Fprint(w, l.text)
					}
				}
				fmt.Fprint(w, s.out.String())
				delete(pkgs, e.Package)
			}
		}
	})
}

type timing struct {
	name    string
	seconds float64
	failed  bool
}

// summary prints each package's time (slowest first), the slowest top-level tests, and the
// wall time of the run beside the sum of the package times.
func summary(files []string, top int, w io.Writer) error {
	if len(files) == 0 {
		return fmt.Errorf("summary: name a go test -json file (scripts/test.sh writes bin/test-results.json)")
	}
	var pkgs, tests []timing
	var first, last time.Time
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		err = decode(fh, func(e event) {
			if !e.Time.IsZero() {
				if first.IsZero() || e.Time.Before(first) {
					first = e.Time
				}
				if e.Time.After(last) {
					last = e.Time
				}
			}
			if e.Action != "pass" && e.Action != "fail" {
				return
			}
			t := timing{seconds: e.Elapsed, failed: e.Action == "fail"}
			switch {
			case e.Test == "":
				t.name = e.Package
				pkgs = append(pkgs, t)
			case !strings.Contains(e.Test, "/"):
				t.name = e.Package + " " + e.Test
				tests = append(tests, t)
			}
		})
		fh.Close()
		if err != nil {
			return err
		}
	}
	byTime := func(ts []timing) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seconds > ts[j].seconds })
	}
	byTime(pkgs)
	byTime(tests)
	var sum float64
	for _, p := range pkgs {
		sum += p.seconds
	}
	fmt.Fprintf(w, "packages by test time (the test binary's run, its build not included):\n")
	for _, p := range pkgs {
		fmt.Fprintf(w, "  %8.1fs  %s%s\n", p.seconds, p.name, mark(p.failed))
	}
	fmt.Fprintf(w, "  %8.1fs  sum of %d packages; wall time of the run %.1fs (build included)\n",
		sum, len(pkgs), last.Sub(first).Seconds())
	if len(tests) > top {
		tests = tests[:top]
	}
	fmt.Fprintf(w, "\nslowest top-level tests (parallel tests count their waits too):\n")
	for _, t := range tests {
		fmt.Fprintf(w, "  %8.2fs  %s%s\n", t.seconds, t.name, mark(t.failed))
	}
	return nil
}

func mark(failed bool) string {
	if failed {
		return "  FAIL"
	}
	return ""
}
