package sender_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store/sender"
)

func TestTheSenderChecksTheAddressItActuallyDials(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	strict := egress.NewPolicy()
	dev, _ := egress.ParseAllowList("127.0.0.0/8")
	req := domain.WebhookRequest{ID: "evt_1", Timestamp: time.Unix(1700000000, 0), Signature: "v1,abc", Body: []byte(`{}`)}
	cases := []struct {
		name   string
		policy *egress.Policy
		url    string
		ok     bool
	}{
		{"loopback by address is refused", strict, srv.URL, false},
		// A name is resolved at dial time: one that points inside (as after DNS rebinding) is refused.
		{"a name resolving to loopback is refused", strict, "http://localhost" + port, false},
		{"an allowed range is reached", dev, srv.URL, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req.URL = tc.url
			status, err := sender.New(tc.policy, 1).Send(context.Background(), req)
			if tc.ok {
				if err != nil || status != http.StatusNoContent {
					t.Fatalf("status %d err %v", status, err)
				}
				if got.Get("webhook-id") != "evt_1" || got.Get("webhook-timestamp") != "1700000000" ||
					got.Get("webhook-signature") != "v1,abc" || got.Get("Content-Type") != "application/json" {
					t.Errorf("headers %v", got)
				}
				return
			}
			if !errors.Is(err, egress.ErrDenied) {
				t.Fatalf("err = %v, want egress.ErrDenied", err)
			}
		})
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	defer target.Close()
	srv := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer srv.Close()
	dev, _ := egress.ParseAllowList("127.0.0.0/8")
	status, err := sender.New(dev, 1).Send(context.Background(), domain.WebhookRequest{URL: srv.URL, Body: []byte(`{}`)})
	if err != nil || status != http.StatusTemporaryRedirect {
		t.Fatalf("status %d err %v, want the 307 itself", status, err)
	}
}
