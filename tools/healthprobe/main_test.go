package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestTheProbeSucceedsOnlyOnA2xxAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			w.WriteHeader(http.StatusOK)
		case "/slow":
			time.Sleep(200 * time.Millisecond)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"ready", []string{srv.URL + "/readyz"}, true},
		{"not ready", []string{srv.URL + "/down"}, false},
		{"too slow", []string{srv.URL + "/slow"}, false},
		{"nothing listening", []string{"http://127.0.0.1:1/readyz"}, false},
		{"no URL", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := probe(context.Background(), c.args, 100*time.Millisecond)
			if (err == nil) != c.ok {
				t.Errorf("probe(%v) = %v, want ok=%v", c.args, err, c.ok)
			}
		})
	}
}

func TestWithoutAnArgumentTheProbeAsksTheReadinessOfHTTPAddr(t *testing.T) {
	for addr, want := range map[string]string{
		":8081":          "http://127.0.0.1:8081/readyz",
		"0.0.0.0:8082":   "http://127.0.0.1:8082/readyz",
		"127.0.0.1:8083": "http://127.0.0.1:8083/readyz",
		"[::]:9000":      "http://127.0.0.1:9000/readyz",
		"[::1]:9001":     "http://[::1]:9001/readyz",
	} {
		if got, err := readyzURL(addr); err != nil || got != want {
			t.Errorf("readyzURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
	for _, bad := range []string{"", "8081", "localhost"} {
		if got, err := readyzURL(bad); err == nil {
			t.Errorf("readyzURL(%q) = %q, want an error", bad, got)
		}
	}
}
