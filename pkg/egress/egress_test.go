package egress_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/videotpl/platform/pkg/egress"
)

func TestCheckDeniesEveryInternalRangeAndAllowsPublicAddresses(t *testing.T) {
	var strict egress.Policy
	cases := []struct {
		class, ip string
		allowed   bool
	}{
		{"v4 public", "8.8.8.8", true},
		{"v4 public", "93.184.216.34", true},
		{"v4 this network", "0.0.0.0", false},
		{"v4 this network", "0.1.2.3", false},
		{"v4 private", "10.1.2.3", false},
		{"v4 private", "172.20.0.1", false},
		{"v4 private", "192.168.1.1", false},
		{"v4 carrier-grade NAT", "100.100.1.1", false},
		{"v4 loopback", "127.0.0.1", false},
		{"v4 loopback", "127.255.0.9", false},
		{"v4 link-local metadata", "169.254.169.254", false},
		{"v4 IETF assignments", "192.0.0.8", false},
		{"v4 documentation", "192.0.2.1", false},
		{"v4 documentation", "198.51.100.7", false},
		{"v4 documentation", "203.0.113.9", false},
		{"v4 6to4 relay", "192.88.99.1", false},
		{"v4 benchmarking", "198.19.0.1", false},
		{"v4 multicast", "224.0.0.1", false},
		{"v4 multicast", "239.255.255.250", false},
		{"v4 reserved", "240.0.0.1", false},
		{"v4 broadcast", "255.255.255.255", false},
		{"v6 public", "2606:4700:4700::1111", true},
		{"v6 public", "2a00:1450:4001:80b::200e", true},
		{"v6 unspecified", "::", false},
		{"v6 loopback", "::1", false},
		{"v6 IPv4-compatible", "::7f00:1", false},
		{"v6 unique local", "fd00::1", false},
		{"v6 link-local", "fe80::1", false},
		{"v6 link-local with zone", "fe80::1%eth0", false},
		{"v6 site-local", "fec0::1", false},
		{"v6 multicast", "ff02::1", false},
		{"v6 documentation", "2001:db8::1", false},
		{"v6 documentation", "3fff::1", false},
		{"v6 discard", "100::1", false},
		{"v6 Teredo", "2001:0:4136:e378::1", false},
		{"v6 6to4", "2002:7f00:1::1", false},
		{"mapped loopback", "::ffff:127.0.0.1", false},
		{"mapped metadata", "::ffff:169.254.169.254", false},
		{"mapped private", "::ffff:10.0.0.1", false},
		{"mapped public", "::ffff:8.8.8.8", true},
		{"IPv4-translated", "::ffff:0:a00:1", false},
		{"NAT64 private", "64:ff9b::a00:1", false},
		{"NAT64 public", "64:ff9b::808:808", false},
		{"NAT64 local-use", "64:ff9b:1::a00:1", false},
	}
	for _, c := range cases {
		t.Run(c.class+" "+c.ip, func(t *testing.T) {
			err := strict.Check(netip.MustParseAddr(c.ip))
			if (err == nil) != c.allowed {
				t.Fatalf("Check(%s) = %v, want allowed=%v", c.ip, err, c.allowed)
			}
			if err != nil && !errors.Is(err, egress.ErrDenied) {
				t.Fatalf("a refusal must wrap ErrDenied: %v", err)
			}
		})
	}
	if err := (*egress.Policy)(nil).Check(netip.MustParseAddr("127.0.0.1")); !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("a nil policy must deny like the zero one: %v", err)
	}
	if err := strict.Check(netip.Addr{}); !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("an invalid address must be denied: %v", err)
	}
}

func TestTheAllowListExemptsItsRangesAndNothingElse(t *testing.T) {
	p, err := egress.ParseAllowList(" 127.0.0.1, 10.20.0.0/16,::ffff:192.168.7.0/120, fd00:1::/32 ,")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ip      string
		allowed bool
	}{
		{"127.0.0.1", true},
		{"::ffff:127.0.0.1", true},
		{"127.0.0.2", false},
		{"10.20.3.4", true},
		{"10.21.0.1", false},
		{"192.168.7.9", true},
		{"192.168.8.1", false},
		{"fd00:1::5", true},
		{"fd00:2::5", false},
		{"169.254.169.254", false},
		{"8.8.8.8", true},
	}
	for _, c := range cases {
		if err := p.Check(netip.MustParseAddr(c.ip)); (err == nil) != c.allowed {
			t.Errorf("Check(%s) = %v, want allowed=%v", c.ip, err, c.allowed)
		}
	}
	for _, bad := range []string{"not-a-cidr", "10.0.0.0/33", "127.0.0.1/8/9"} {
		if _, err := egress.ParseAllowList(bad); err == nil {
			t.Errorf("ParseAllowList(%q) accepted a bad range", bad)
		}
	}
	if p, err := egress.ParseAllowList(""); err != nil || p.Allowed(netip.MustParseAddr("127.0.0.1")) {
		t.Fatalf("an empty list must allow nothing internal: %v", err)
	}
}

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return f[host], nil
}

func TestCheckURLRefusesBadURLsAndInternalHosts(t *testing.T) {
	strict := egress.NewPolicy()
	dev, _ := egress.ParseAllowList("127.0.0.0/8, 10.1.0.0/16")
	resolve := fakeResolver{
		"hooks.example.com": {netip.MustParseAddr("93.184.216.34")},
		"rebind.example":    {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.5")},
		"dev.example":       {netip.MustParseAddr("10.1.0.9")},
	}
	plain := egress.URLRules{}
	webhook := egress.URLRules{Resolver: resolve, HTTPSOnly: true}
	cases := []struct {
		name   string
		policy *egress.Policy
		rules  egress.URLRules
		url    string
		ok     bool
		denied bool
	}{
		{"a public name", strict, plain, "https://mcp.example.com/mcp", true, false},
		{"a public literal over http", strict, plain, "http://93.184.216.34:8080/", true, false},
		{"another scheme", strict, plain, "ftp://example.com/", false, false},
		{"credentials", strict, plain, "https://user:pass@example.com/", false, false},
		{"no host", strict, plain, "https:///nohost", false, false},
		{"a relative URL", strict, plain, "/relative", false, false},
		{"a fragment", strict, plain, "https://example.com/#x", false, false},
		{"not a URL", strict, plain, "not a url at all\x7f", false, false},
		{"a loopback literal", strict, plain, "http://127.0.0.1:3001/mcp", false, true},
		{"a v6 loopback literal", strict, plain, "http://[::1]/", false, true},
		{"a mapped private literal", strict, plain, "https://[::ffff:10.0.0.1]/in", false, true},
		{"localhost", strict, plain, "http://localhost:8080/", false, true},
		{"a localhost subdomain", strict, plain, "http://api.localhost./", false, true},
		{"cloud metadata", strict, plain, "http://169.254.169.254/latest/meta-data", false, true},
		{"carrier-grade NAT", strict, plain, "https://100.64.1.1/in", false, true},
		{"a resolved public name", strict, webhook, "https://hooks.example.com/in", true, false},
		{"https only", strict, webhook, "http://hooks.example.com/in", false, false},
		{"one internal answer of several", strict, webhook, "https://rebind.example/in", false, true},
		{"a name that does not resolve", strict, webhook, "https://nowhere.example/in", false, false},
		{"http to an allowed range", dev, webhook, "http://127.0.0.1:9999/in", true, false},
		{"http to a name in an allowed range", dev, webhook, "http://dev.example/in", true, false},
		{"https to an allowed range", dev, webhook, "https://10.1.2.3/in", true, false},
		{"outside the allowed range", dev, webhook, "https://10.2.0.1/in", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.policy.CheckURL(context.Background(), c.url, c.rules)
			if (err == nil) != c.ok {
				t.Fatalf("CheckURL(%q) = %v, want ok=%v", c.url, err, c.ok)
			}
			if errors.Is(err, egress.ErrDenied) != c.denied {
				t.Fatalf("CheckURL(%q) = %v, want denied=%v", c.url, err, c.denied)
			}
		})
	}
}

func TestADialToLoopbackIsRefusedUnlessAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer srv.Close()
	allowed, _ := egress.ParseAllowList("127.0.0.1/32")
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	cases := []struct {
		name   string
		policy *egress.Policy
		url    string
		ok     bool
	}{
		{"loopback by address", egress.NewPolicy(), srv.URL, false},
		// A name passes registration without a resolver; what it resolves to is caught at dial.
		{"a name resolving to loopback", egress.NewPolicy(), "http://localhost" + port, false},
		{"loopback allowed", allowed, srv.URL, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client := c.policy.HTTPClient(0)
			defer client.CloseIdleConnections()
			resp, err := client.Get(c.url)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !c.ok || string(body) != "ok" {
					t.Fatalf("reached %s: %q", c.url, body)
				}
				return
			}
			if c.ok || !errors.Is(err, egress.ErrDenied) {
				t.Fatalf("err = %v, want ok=%v or a denial", err, c.ok)
			}
		})
	}

	// The dialer alone refuses the same way.
	conn, err := egress.NewPolicy().Dialer(0).Dial("tcp", srv.Listener.Addr().String())
	if err == nil {
		conn.Close()
		t.Fatal("the dialer connected to loopback")
	}
	if !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("err = %v, want a denial", err)
	}
}

func TestARedirectToAnInternalAddressIsRefused(t *testing.T) {
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

	p, _ := egress.ParseAllowList("127.0.0.1/32")
	resp, err := p.HTTPClient(0).Get(redirect.URL)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("err = %v, want the redirect target denied", err)
	}
}

func TestRedactURLsKeepsOnlySchemeAndHost(t *testing.T) {
	cases := map[string]string{
		`Post "https://user:pw@gw.example.com:8443/v1/chat/completions?key=sk-123": dial tcp: refused`: `Post "https://gw.example.com:8443": dial tcp: refused`,
		"no url here":                           "no url here",
		"two http://a.example/x?t=1 and ws://b": "two http://a.example and ws://b",
	}
	for in, want := range cases {
		if got := egress.RedactURLs(in); got != want {
			t.Errorf("RedactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}
