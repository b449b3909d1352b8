// Package mcptest starts @modelcontextprotocol/server-everything, the MCP reference server from
// npm (installed into node_modules by `make tools`), for tests that need a real tool server that
// this project did not write.
package mcptest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// StartEverything starts server-everything in streamable HTTP mode on a free loopback port,
// waits until it accepts connections and returns its MCP endpoint
// ("http://127.0.0.1:PORT/mcp"). The server is killed when the test ends.
func StartEverything(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(NodeBin(t), "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("server-everything is not installed (%v): run `make tools` (npm ci) first", err)
	}
	port := FreePort(t)
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start server-everything: %v", err)
	}
	exited := make(chan struct{})
	var exitErr error
	go func() {
		exitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return "http://" + addr + "/mcp"
		}
		select {
		case <-exited:
			t.Fatalf("server-everything exited: %v\n%s", exitErr, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s in time\n%s", addr, out.String())
		}
	}
}

// NodeBin is $NODE_BIN (set by scripts/test.sh), else node_modules/.bin at the repository root,
// found upwards from this file.
func NodeBin(t testing.TB) string {
	t.Helper()
	if b := os.Getenv("NODE_BIN"); b != "" {
		return b
	}
	_, file, _, _ := runtime.Caller(0)
	for dir := filepath.Dir(file); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin")); err == nil {
			return filepath.Join(dir, "node_modules", ".bin")
		}
	}
	t.Fatal("node_modules/.bin not found above the test; run `make tools`")
	return ""
}

// FreePort returns a loopback TCP port nothing listens on (at the time of the call).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
