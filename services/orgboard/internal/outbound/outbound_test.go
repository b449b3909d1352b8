package outbound

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestCheckIPDeniesInternalAddressesAndAllowsPublicOnes(t *testing.T) {
	var p Policy
	cases := []struct {
		ip      string
		allowed bool
	}{
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"10.1.2.3", false},
		{"172.20.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"100.100.1.1", false},
		{"0.0.0.0", false},
		{"::1", false},
		{"::", false},
		{"fd00::1", false},
		{"fe80::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"64:ff9b::a00:1", false},
		{"224.0.0.1", false},
	}
	for _, c := range cases {
		t.Run(c.ip, func(t *testing.T) {
			err := p.CheckIP(netip.MustParseAddr(c.ip))
			if (err == nil) != c.allowed {
				t.Fatalf("CheckIP(%s) = %v, want allowed=%v", c.ip, err, c.allowed)
			}
			if err != nil && !IsDenied(err) {
				t.Fatalf("a refusal must wrap ErrDenied: %v", err)
			}
		})
	}
}

func TestAllowedRangesOverrideTheDenyList(t *testing.T) {
	p, err := ParseAllow("127.0.0.1, 10.20.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"127.0.0.1", "10.20.3.4", "::ffff:127.0.0.1"} {
		if err := p.CheckIP(netip.MustParseAddr(ip)); err != nil {
			t.Fatalf("%s: %v", ip, err)
		}
	}
	for _, ip := range []string{"127.0.0.2", "10.21.0.1"} {
		if err := p.CheckIP(netip.MustParseAddr(ip)); err == nil {
			t.Fatalf("%s allowed", ip)
		}
	}
	if _, err := ParseAllow("not-a-cidr"); err == nil {
		t.Fatal("a bad range was accepted")
	}
}

func TestCheckURLRefusesBadURLsAndInternalLiterals(t *testing.T) {
	var p Policy
	cases := []struct {
		url string
		ok  bool
	}{
		{"https://mcp.example.com/mcp", true},
		{"http://93.184.216.34:8080/", true},
		{"ftp://example.com/", false},
		{"https://user:pass@example.com/", false},
		{"https:///nohost", false},
		{"http://127.0.0.1:3001/mcp", false},
		{"http://[::1]/", false},
		{"http://localhost:8080/", false},
		{"http://api.localhost/", false},
		{"http://169.254.169.254/latest/meta-data", false},
		{"not a url at all\x7f", false},
	}
	for _, c := range cases {
		if err := p.CheckURL(c.url); (err == nil) != c.ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", c.url, err, c.ok)
		}
	}
}

func TestTransportRefusesToConnectToADeniedAddressAtDialTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer srv.Close()

	// A host name passes CheckURL; the dial-time check still catches what it resolves to.
	var deny Policy
	client := &http.Client{Transport: deny.Transport()}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if err == nil || !IsDenied(err) {
		t.Fatalf("err = %v, want a denial", err)
	}

	allow, _ := ParseAllow("127.0.0.0/8")
	client = &http.Client{Transport: allow.Transport()}
	resp, err = client.Get(srv.URL)
	if err != nil {
		t.Fatalf("allowed range: %v", err)
	}
	resp.Body.Close()
}

func TestRedirectToAnInternalAddressIsRefused(t *testing.T) {
	// The internal target listens on 127.0.0.2; only 127.0.0.1 (the redirecting server) is allowed.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this host: %v", err)
	}
	internal := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "secret") }))
	internal.Listener = ln
	internal.Start()
	defer internal.Close()
	redirect := httptest.NewServer(http.RedirectHandler(internal.URL, http.StatusFound))
	defer redirect.Close()

	p, _ := ParseAllow("127.0.0.1/32")
	client := &http.Client{Transport: p.Transport()}
	resp, err := client.Get(redirect.URL)
	if err == nil {
		resp.Body.Close()
	}
	if err == nil || !IsDenied(err) {
		t.Fatalf("err = %v, want the redirect target denied", err)
	}
}
