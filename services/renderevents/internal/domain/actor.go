package domain

import (
	"slices"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Service token scopes of this service.
const (
	ScopeRead  = "renderevents:read"
	ScopeWrite = "renderevents:write"
)

// Actor is the authenticated caller as the application sees it.
type Actor struct {
	// TenantID is the user's tenant, or the tenant a service token is bound to (zero when none).
	TenantID uuid.UUID
	// Service is true for a service token.
	Service bool
	// Admin is true for a user with the admin role.
	Admin bool
	// Scopes are the scopes of a service token.
	Scopes []string
}

// HasScope reports whether the actor carries scope.
func (a Actor) HasScope(scope string) bool { return slices.Contains(a.Scopes, scope) }

// TenantFilter returns the tenants the actor may read (write false) or change, with the
// tenant_id query parameter when given: nil for every tenant, else the one tenant.
//
//   - a service token needs renderevents:read (reads) or renderevents:write (writes); it
//     sees every tenant, or the tenant it is bound to;
//   - a user with the admin role sees every tenant; tenant_id narrows it;
//   - any other user sees its own tenant; passing tenant_id is forbidden.
func (a Actor) TenantFilter(requested *uuid.UUID, write bool) (*uuid.UUID, error) {
	switch {
	case a.Service:
		scope := ScopeRead
		if write {
			scope = ScopeWrite
		}
		if !a.HasScope(scope) {
			return nil, errs.Ef(errs.Forbidden, "the service token lacks scope %s", scope)
		}
		if a.TenantID != uuid.Nil {
			if requested != nil && *requested != a.TenantID {
				return nil, errs.E(errs.Forbidden, "the service token is bound to another tenant")
			}
			t := a.TenantID
			return &t, nil
		}
		return requested, nil
	case a.Admin:
		return requested, nil
	default:
		if requested != nil {
			return nil, errs.E(errs.Forbidden, "only an admin or a service token may pass tenant_id")
		}
		t := a.TenantID
		return &t, nil
	}
}
