package domain

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/videotpl/platform/pkg/errs"
)

// Resolver looks up the addresses of a host name (net.Resolver satisfies it).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// OutboundPolicy decides which addresses the service may call on a tenant's behalf
// (webhook URLs): public unicast addresses, plus the ranges an operator allows
// (OUTBOUND_ALLOW_CIDRS, e.g. 127.0.0.0/8 for development receivers). Addresses are
// checked where the connection is made, so a DNS answer that changes after the URL was
// registered (rebinding) cannot reach an internal address.
type OutboundPolicy struct {
	allow []netip.Prefix
}

// denied are the non-public ranges the netip predicates do not cover.
var denied = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 (could embed a private IPv4)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}

// NewOutboundPolicy parses a comma-separated list of CIDRs allowed although not public.
func NewOutboundPolicy(allowCIDRs string) (OutboundPolicy, error) {
	var p OutboundPolicy
	for _, s := range strings.Split(allowCIDRs, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			return OutboundPolicy{}, fmt.Errorf("OUTBOUND_ALLOW_CIDRS: %w", err)
		}
		p.allow = append(p.allow, pfx.Masked())
	}
	return p, nil
}

func (p OutboundPolicy) allowed(ip netip.Addr) bool {
	for _, pfx := range p.allow {
		if pfx.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckIP refuses an address that is not public unicast, unless an allowed range holds it.
func (p OutboundPolicy) CheckIP(ip netip.Addr) error {
	ip = ip.Unmap()
	if p.allowed(ip) {
		return nil
	}
	switch {
	case !ip.IsValid(), ip.IsUnspecified(), ip.IsLoopback(), ip.IsPrivate(), ip.IsLinkLocalUnicast(),
		ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast(), ip.IsMulticast():
		return fmt.Errorf("address %s is not public", ip)
	}
	for _, pfx := range denied {
		if pfx.Contains(ip) {
			return fmt.Errorf("address %s is not public", ip)
		}
	}
	return nil
}

// CheckURL validates a webhook URL for registration: absolute http(s) without
// credentials; every address its host resolves to must pass CheckIP. Plain http is
// accepted only when every address lies in an allowed range (development receivers).
// Failures are Invalid errors naming field.
func (p OutboundPolicy) CheckURL(ctx context.Context, r Resolver, field, raw string) error {
	bad := func(msg string) error { return errs.InvalidFields(errs.Field(field, msg)) }
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return bad("must be an absolute URL")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return bad("must be an https URL")
	}
	if u.User != nil {
		return bad("must not carry credentials")
	}
	if u.Fragment != "" {
		return bad("must not carry a fragment")
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		addrs, err = r.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return bad("host " + host + " does not resolve")
		}
	}
	allAllowed := true
	for _, ip := range addrs {
		if err := p.CheckIP(ip); err != nil {
			return bad("is refused by the outbound policy: " + err.Error())
		}
		allAllowed = allAllowed && p.allowed(ip.Unmap())
	}
	if u.Scheme == "http" && !allAllowed {
		return bad("must be an https URL")
	}
	return nil
}
