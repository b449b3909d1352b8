package loadgen

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTheLoadClientReadsEveryFramingOnOneConnection(t *testing.T) {
	big := strings.Repeat("x", 3*readBuffer+17)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPatch {
			// A body is sent whole, as JSON, and echoed back.
			body, err := io.ReadAll(r.Body)
			if err != nil || r.Header.Get("Content-Type") != "application/json" || !json.Valid(body) {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			_, _ = w.Write(body)
			return
		}
		switch r.URL.Query().Get("as") {
		case "chunked": // streamed: no Content-Length
			for range 3 {
				_, _ = w.Write([]byte(big))
				w.(http.Flusher).Flush()
			}
		case "missing":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Length", "5")
			_, _ = w.Write([]byte("hello"))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	for _, tc := range []struct {
		method, target, token string
		body                  []byte
		status                int
	}{
		{"GET", "/v1/x?as=length", "tok", nil, 200}, {"GET", "/v1/x?as=chunked", "tok", nil, 200},
		{"GET", "/v1/x?as=missing", "tok", nil, 404}, {"GET", "/v1/x?as=length", "bad", nil, 401},
		{"PATCH", "/v1/x", "tok", []byte(`{"status":"in_review"}`), 200}, {"GET", "/v1/x?as=chunked", "tok", nil, 200},
	} {
		c, err := NewClient(srv.URL, tc.token, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 { // the same connection carries every request
			status, err := c.Do(tc.method, tc.target, tc.body)
			if err != nil || status != tc.status {
				t.Fatalf("%s %s: status %d, error %v; want %d", tc.method, tc.target, status, err, tc.status)
			}
		}
		c.Close()
	}
	if n := conns.Load(); n != 6 {
		t.Errorf("%d connections for 6 clients of 3 requests each", n)
	}
}

func TestAResponseWithoutFramingEndsTheConnection(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody until the end"
	status, keep, err := readResponse(bufio.NewReader(strings.NewReader(raw)))
	if err != nil || status != 200 || keep {
		t.Errorf("status %d, keep %v, error %v", status, keep, err)
	}
	if _, _, err := readResponse(bufio.NewReader(strings.NewReader("SSH-2.0-OpenSSH\r\n"))); err == nil {
		t.Error("a response that is not HTTP must be refused")
	}
}
