// Package egress holds the outbound policy: which addresses a service may call on a tenant's behalf, checked where each connection is made.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrDenied is wrapped by every refusal of the policy, at registration and at dial time.
var ErrDenied = errors.New("refused by the outbound policy")

// denied are the special-purpose ranges that are not globally reachable (IANA special-purpose
// registries); the netip predicates in Check cover loopback, private, link-local, multicast and
// unspecified on top of them.
var denied = mustPrefixes(
	"0.0.0.0/8",       // "this" network
	"10.0.0.0/8",      // private
	"100.64.0.0/10",   // carrier-grade NAT
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, cloud metadata
	"172.16.0.0/12",   // private
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation
	"192.88.99.0/24",  // 6to4 relay anycast
	"192.168.0.0/16",  // private
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation
	"203.0.113.0/24",  // documentation
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, limited broadcast
	"::/96",           // unspecified, loopback and the deprecated IPv4-compatible addresses
	"::ffff:0:0:0/96", // IPv4-translated (SIIT), embeds an IPv4 address
	"64:ff9b::/96",    // NAT64, embeds an IPv4 address
	"64:ff9b:1::/48",  // local-use NAT64
	"100::/64",        // discard
	"2001::/23",       // IETF protocol assignments (Teredo, ORCHID ...)
	"2001:db8::/32",   // documentation
	"2002::/16",       // 6to4, embeds an IPv4 address
	"3fff::/20",       // documentation
	"fc00::/7",        // unique local
	"fe80::/10",       // link-local
	"fec0::/10",       // site-local (deprecated, still routed inside some networks)
	"ff00::/8",        // multicast
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Policy allows public unicast addresses and the ranges of its allow-list, which exempts
// addresses from the deny list (OUTBOUND_ALLOW_CIDRS). The zero value and a nil *Policy allow
// public addresses only.
type Policy struct {
	allow []netip.Prefix
}

// NewPolicy returns a policy whose allow-list is allow.
func NewPolicy(allow ...netip.Prefix) *Policy {
	p := &Policy{}
	for _, a := range allow {
		p.allow = append(p.allow, unmapPrefix(a.Masked()))
	}
	return p
}

// ParseAllowList reads OUTBOUND_ALLOW_CIDRS: comma-separated CIDR ranges (or single addresses)
// that outbound calls may reach although they are internal, e.g. "127.0.0.0/8,10.20.0.0/16".
// An empty list allows public addresses only.
func ParseAllowList(spec string) (*Policy, error) {
	var allow []netip.Prefix
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("OUTBOUND_ALLOW_CIDRS: %q is neither a CIDR range nor an address", part)
			}
			allow = append(allow, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pr, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("OUTBOUND_ALLOW_CIDRS: %q is not a CIDR range", part)
		}
		allow = append(allow, pr)
	}
	return NewPolicy(allow...), nil
}

// unmapPrefix turns an IPv4-mapped range (::ffff:10.0.0.0/104) into its IPv4 form, the form
// Check compares against.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}

// Allowed reports whether the allow-list holds ip (an IPv4-mapped address by its IPv4 form).
func (p *Policy) Allowed(ip netip.Addr) bool {
	if p == nil {
		return false
	}
	ip = ip.Unmap().WithZone("")
	for _, a := range p.allow {
		if a.Contains(ip) {
			return true
		}
	}
	return false
}

// Check reports whether ip may be called: an address of the allow-list may, otherwise it must be
// public unicast. IPv4-mapped addresses (::ffff:a.b.c.d) are judged by their IPv4 address.
func (p *Policy) Check(ip netip.Addr) error {
	if !ip.IsValid() {
		return fmt.Errorf("%w: not a valid address", ErrDenied)
	}
	ip = ip.Unmap().WithZone("")
	if p.Allowed(ip) {
		return nil
	}
	if ip.IsUnspecified() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return deniedAddr(ip)
	}
	for _, d := range denied {
		if d.Contains(ip) {
			return deniedAddr(ip)
		}
	}
	return nil
}

func deniedAddr(ip netip.Addr) error {
	return fmt.Errorf("%w: %s is an internal or special-purpose address", ErrDenied, ip)
}

// control checks the address a connection is about to be made to, after DNS resolution, so a
// name that resolves inside (DNS rebinding, a redirect) is refused like a literal.
func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse the address %q", ErrDenied, address)
	}
	return p.Check(ap.Addr())
}

// Dialer returns a dialer that refuses connections to addresses the policy denies.
func (p *Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: p.control}
}

// Transport returns an HTTP transport whose every connection (redirects included) passes the
// policy. It uses no proxy: a proxy would dial on the service's behalf, past the policy.
func (p *Policy) Transport() *http.Transport {
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

// HTTPClient returns a client on Transport with a time limit per request (none when 0).
// Redirects are followed, each through the policy; set CheckRedirect to refuse them.
func (p *Policy) HTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Transport: p.Transport(), Timeout: timeout}
}
