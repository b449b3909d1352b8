package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// services are the three deployable services and their default ports.
var services = []struct {
	name string
	port int
}{{"content", 8081}, {"orgboard", 8082}, {"renderevents", 8083}}

// repoRoot is the repository root (the parent of this module).
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Dir(filepath.Dir(file))
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// process is a service binary started by a test; its stderr (JSON logs) is kept.
type process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	// lines receives every log line as it is written.
	lines chan string
	done  chan struct{}
	err   error
}

// startProcess runs bin with args and env (added to a minimal environment); the test's end
// kills it if it is still running.
func startProcess(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// Any free port for /metrics unless the test chooses (processes run side by side).
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "METRICS_ADDR=127.0.0.1:0"}, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, lines: make(chan string, 4096), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.logs.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s %v logs:\n%s", filepath.Base(bin), args, p.output())
		}
	})
	return p
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

func (p *process) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// waitLog waits until a log line contains every part.
func (p *process) waitLog(t *testing.T, within time.Duration, parts ...string) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case line := <-p.lines:
			if containsAll(line, parts) {
				return
			}
		case <-p.done:
			if containsAll(p.output(), parts) {
				return
			}
			t.Fatalf("process exited (%v) before logging %q", p.err, parts)
		case <-deadline:
			t.Fatalf("no log line with %q within %s", parts, within)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// wait waits for the process to exit and returns its exit error (nil for status 0).
func (p *process) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(within):
		t.Fatalf("process did not exit within %s", within)
		return nil
	}
}

// waitReady polls base+"/readyz" until it answers 200.
func waitReady(t *testing.T, p *process, base string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("service exited (%v) before it was ready", p.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz not ready within %s (last error %v)", base, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runCmd runs a command in dir and fails the test with its output on error.
func runCmd(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// envVars lists the environment variables a service binary reads (its `help` output).
func envVars(t testing.TB, bin string) map[string]bool {
	t.Helper()
	out, _ := exec.Command(bin, "help").CombinedOutput()
	vars := map[string]bool{}
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "environment:") {
			in = true
			continue
		}
		if f := strings.Fields(line); in && len(f) > 0 {
			vars[f[0]] = true
		}
	}
	if !vars["DATABASE_URL"] || !vars["HTTP_ADDR"] {
		t.Fatalf("%s help lists no environment (DATABASE_URL, HTTP_ADDR):\n%s", bin, out)
	}
	return vars
}

// helpDefaults reads the defaults `<binary> help` lists per variable ("(unset)" when none).
func helpDefaults(t testing.TB, bin string) map[string]string {
	t.Helper()
	out, _ := exec.Command(bin, "help").CombinedOutput()
	defs := map[string]string{}
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "environment:") {
			in = true
			continue
		}
		if f := strings.Fields(line); in && len(f) > 1 {
			defs[f[0]] = f[1]
		}
	}
	return defs
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}
