// Package auth verifies the two credentials of the platform and describes who is calling.
//
// BearerAuth is a JWT (HS256 with a shared secret in development, RS256/ES256 with keys from a
// JWKS URL in production) whose claims are sub (user uuid), tenant_id (uuid) and roles.
// ServiceToken is an opaque token for service-to-service calls, configured by the sha256 of its
// value together with a name and scopes. Service tokens start with "svc_", which is how a
// token is told apart from a JWT before any verification.
package auth

import (
	"context"
	"slices"

	"github.com/google/uuid"
)

// PrincipalKind says whether a principal is a user (JWT) or a service (service token).
type PrincipalKind int

const (
	// User is a person authenticated by a JWT.
	User PrincipalKind = iota + 1
	// Service is a caller authenticated by a service token.
	Service
)

func (k PrincipalKind) String() string {
	switch k {
	case User:
		return "user"
	case Service:
		return "service"
	}
	return "unknown"
}

// AdminRole is the JWT role that grants administrative operations.
const AdminRole = "admin"

// Principal is the authenticated caller of a request.
type Principal struct {
	Kind PrincipalKind
	// UserID is the JWT subject; zero for services.
	UserID uuid.UUID
	// TenantID is the tenant of the user, or the tenant a service token is bound to (zero when
	// the token is not bound to one).
	TenantID uuid.UUID
	// Roles come from the JWT roles claim.
	Roles []string
	// Scopes come from the service token configuration.
	Scopes []string
	// Name is the configured name of a service token.
	Name string
}

// HasRole reports whether the principal carries role.
func (p Principal) HasRole(role string) bool { return slices.Contains(p.Roles, role) }

// HasScope reports whether the principal carries scope.
func (p Principal) HasScope(scope string) bool { return slices.Contains(p.Scopes, scope) }

// IsAdmin reports whether the principal may perform administrative operations: a user with the
// admin role, or a service token with the given scope (e.g. "content:admin").
func (p Principal) IsAdmin(scope string) bool {
	return p.HasRole(AdminRole) || (scope != "" && p.HasScope(scope))
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal of the request, if it was authenticated.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
