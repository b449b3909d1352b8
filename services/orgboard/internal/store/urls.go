package store

import (
	"context"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// URLs is the egress policy as the domain's URL check: a registered URL must not name an
// internal address. Its host need not resolve yet, since every dial is checked again.
func URLs(p *egress.Policy) domain.URLPolicy { return urlPolicy{p} }

type urlPolicy struct{ p *egress.Policy }

func (u urlPolicy) CheckURL(ctx context.Context, raw string) error {
	return u.p.CheckURL(ctx, raw, egress.URLRules{})
}
