package bench

import (
	"bufio"
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
		query, token string
		status       int
	}{{"as=length", "tok", 200}, {"as=chunked", "tok", 200}, {"as=missing", "tok", 404}, {"as=length", "bad", 401}, {"as=chunked", "tok", 200}} {
		c, err := newClient(srv.URL+"/v1/x?"+tc.query, tc.token, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 { // the same connection carries every request
			status, err := c.do()
			if err != nil || status != tc.status {
				t.Fatalf("%s: status %d, error %v; want %d", tc.query, status, err, tc.status)
			}
		}
		c.close()
	}
	if n := conns.Load(); n != 5 {
		t.Errorf("%d connections for 5 clients of 3 requests each", n)
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
