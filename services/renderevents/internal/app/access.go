package app

import (
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// access is what a caller may see: every tenant (tenant nil) or one.
type access struct {
	actor  domain.Actor
	tenant *uuid.UUID
}

// caller applies the actor's tenant filter for a read (write false) or a write, with the
// tenant_id query parameter when given.
func caller(a domain.Actor, requested *uuid.UUID, write bool) (access, error) {
	tenant, err := a.TenantFilter(requested, write)
	if err != nil {
		return access{}, err
	}
	return access{actor: a, tenant: tenant}, nil
}

// sees reports whether the caller may see a resource of tenant; callers that may not
// get 404, as if it were absent.
func (a access) sees(tenant uuid.UUID) bool { return a.tenant == nil || *a.tenant == tenant }

func (a access) seesAll() bool { return a.tenant == nil }

// notFound is the answer for a resource the caller may not see.
func notFound(what string) error { return errs.E(errs.NotFound, what+" not found") }

// visible reads one tenant-owned record for the caller (write: the caller may change it). A
// record of a tenant the caller may not see is reported absent (404), exactly like a missing
// one, so other tenants learn nothing.
func visible[T any](actor domain.Actor, write bool, what string, read func() (T, error), tenantOf func(T) uuid.UUID) (T, error) {
	var zero T
	a, err := caller(actor, nil, write)
	if err != nil {
		return zero, err
	}
	v, err := read()
	if err != nil {
		return zero, err
	}
	if !a.sees(tenantOf(v)) {
		return zero, notFound(what)
	}
	return v, nil
}
