// Package outbound decides which addresses the service may call on a tenant's behalf (tool
// servers, model gateways). A tenant must not reach internal addresses: loopback, private,
// link-local (cloud metadata), carrier-grade NAT, multicast and the other special-purpose
// ranges are denied unless an operator allows a range explicitly. URLs are checked when they are
// registered, and the resolved IP of every connection is checked again at dial time, so DNS
// rebinding and redirects cannot slip past.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// denied are the special-purpose ranges no tenant may reach by default.
var denied = mustPrefixes(
	"0.0.0.0/8",       // "this" network
	"10.0.0.0/8",      // private
	"100.64.0.0/10",   // carrier-grade NAT
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, cloud metadata
	"172.16.0.0/12",   // private
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation
	"192.88.99.0/24",  // 6to4 relay
	"192.168.0.0/16",  // private
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation
	"203.0.113.0/24",  // documentation
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, broadcast
	"::/128",          // unspecified
	"::1/128",         // loopback
	"64:ff9b::/96",    // NAT64 (embeds IPv4 addresses)
	"64:ff9b:1::/48",  // local-use NAT64
	"100::/64",        // discard
	"2001::/23",       // IETF protocol assignments (Teredo, ORCHID ...)
	"2001:db8::/32",   // documentation
	"2002::/16",       // 6to4 (embeds IPv4 addresses)
	"fc00::/7",        // unique local
	"fe80::/10",       // link-local
	"ff00::/8",        // multicast
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// ErrDenied is wrapped by every refusal of the policy.
var ErrDenied = errors.New("outbound address not allowed")

// Policy allows public addresses and the ranges in Allow.
type Policy struct {
	allow []netip.Prefix
}

// ParseAllow reads OUTBOUND_ALLOW_CIDRS: a comma-separated list of CIDR ranges (or single IPs)
// that are allowed even though they are internal, e.g. "127.0.0.1/32,10.20.0.0/16".
func ParseAllow(spec string) (Policy, error) {
	var p Policy
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return Policy{}, fmt.Errorf("outbound: %q is neither a CIDR range nor an IP", part)
			}
			part = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()).String()
		}
		pr, err := netip.ParsePrefix(part)
		if err != nil {
			return Policy{}, fmt.Errorf("outbound: %q is not a CIDR range: %w", part, err)
		}
		p.allow = append(p.allow, pr.Masked())
	}
	return p, nil
}

// Allow returns a policy that also allows prefixes.
func Allow(prefixes ...netip.Prefix) Policy { return Policy{allow: prefixes} }

// CheckIP reports whether ip may be called.
func (p Policy) CheckIP(ip netip.Addr) error {
	ip = ip.Unmap().WithZone("")
	for _, a := range p.allow {
		if a.Contains(ip) {
			return nil
		}
	}
	if !ip.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrDenied)
	}
	for _, d := range denied {
		if d.Contains(ip) {
			return fmt.Errorf("%w: %s is an internal or special-purpose address", ErrDenied, ip)
		}
	}
	return nil
}

// CheckURL validates a URL registered by a tenant: http or https, a host, no credentials in
// the URL (they belong in sealed headers), and a host that is not an internal address when it
// is an IP literal or a localhost name. Host names are checked again on every connection.
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("is not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("must be an http or https URL")
	}
	if u.User != nil {
		return fmt.Errorf("must not carry credentials; send them as sealed headers or a key")
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("must name a host")
	}
	if u.Fragment != "" {
		return fmt.Errorf("must not have a fragment")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckIP(ip)
	}
	lower := strings.TrimSuffix(strings.ToLower(host), ".")
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return p.CheckIP(netip.MustParseAddr("127.0.0.1"))
	}
	return nil
}

// control checks the address a connection is about to be made to (after DNS resolution).
func (p Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrDenied, address)
	}
	return p.CheckIP(ap.Addr())
}

// Dialer returns a dialer that refuses connections to denied addresses.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.control}
}

// Transport returns an HTTP transport whose every connection (redirects included) passes the
// policy. It ignores proxy settings: a proxy would make the checked address the proxy's.
func (p Policy) Transport() *http.Transport {
	d := p.Dialer(10 * time.Second)
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// IsDenied reports whether err is (or wraps) a refusal of the policy.
func IsDenied(err error) bool { return errors.Is(err, ErrDenied) }
