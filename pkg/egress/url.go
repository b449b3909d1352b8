package egress

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
)

// Resolver looks up the addresses of a host name (*net.Resolver satisfies it).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// URLRules are what a caller asks of a URL beyond the policy's address check.
type URLRules struct {
	// Resolver, when set, resolves a host name and checks every address it answers; without
	// one only IP literals and localhost names are checked at registration (every dial is
	// checked anyway).
	Resolver Resolver
	// HTTPSOnly refuses plain http unless every address of the host is in the allow-list
	// (development receivers on loopback).
	HTTPSOnly bool
}

// CheckURL validates a URL a tenant registers for outbound calls: absolute http(s) with a host,
// no credentials (they belong in sealed headers or keys), no fragment, and a host the policy
// allows. The error reads as the message of the offending field; a refused address wraps
// ErrDenied.
func (p *Policy) CheckURL(ctx context.Context, raw string, rules URLRules) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return errors.New("must be an absolute http or https URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if rules.HTTPSOnly {
			return errors.New("must be an https URL")
		}
		return errors.New("must be an http or https URL")
	}
	if u.User != nil {
		return errors.New("must not carry credentials")
	}
	if u.Fragment != "" {
		return errors.New("must not carry a fragment")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("must name a host")
	}
	var addrs []netip.Addr
	lower := strings.TrimSuffix(strings.ToLower(host), ".")
	switch ip, err := netip.ParseAddr(host); {
	case err == nil:
		addrs = []netip.Addr{ip}
	case lower == "localhost" || strings.HasSuffix(lower, ".localhost"):
		// RFC 6761: these names resolve to loopback whatever DNS says.
		addrs = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}
	case rules.Resolver != nil:
		addrs, err = rules.Resolver.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return fmt.Errorf("host %s does not resolve", host)
		}
	}
	allAllowed := len(addrs) > 0
	for _, ip := range addrs {
		if err := p.Check(ip); err != nil {
			return err
		}
		allAllowed = allAllowed && p.Allowed(ip)
	}
	if rules.HTTPSOnly && u.Scheme == "http" && !allAllowed {
		return errors.New("must be an https URL")
	}
	return nil
}

// urlInText finds URLs inside a message (an error of an outbound call quotes the URL it called).
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"']+`)

// RedactURLs replaces every URL in msg with its scheme and host, so that a message about an
// outbound call says where it went but carries no user info, path or query, which may hold
// credentials.
func RedactURLs(msg string) string {
	return urlInText.ReplaceAllStringFunc(msg, func(s string) string {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return "[url]"
		}
		return u.Scheme + "://" + u.Host
	})
}
