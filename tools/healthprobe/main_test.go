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
