package domain

import (
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Who may write the global catalog: every write of content (containers, projects and all
// they hold, AEP files, SVG previews, fonts, music, categories) is to the catalog the platform
// shares with every tenant, so only the platform's own administrators may make it. A tenant's
// admin role (the JWT role "admin") manages its tenant elsewhere and is an ordinary reader here.
const (
	// PlatformAdminRole is the JWT role of the platform's administrators.
	PlatformAdminRole = "platform-admin"
	// AdminScope is the service-token scope that grants the same writes to a service.
	AdminScope = "content:admin"
)

// Actor is the authenticated caller as the application sees it.
type Actor struct {
	// UserID is the token's user (JWT sub); zero for a service token.
	UserID uuid.UUID
	// TenantID is the user's tenant, or the tenant a service token is bound to (zero when none).
	TenantID uuid.UUID
	// Service is true for a service token.
	Service bool
	// Admin is true for a platform administrator: the platform-admin role (JWT) or the
	// content:admin scope (service token). A tenant's admin role does not make it true.
	Admin bool
	// Name identifies the caller in logs and the publication log.
	Name string
}

// ErrAdminOnly refuses an administrative operation to a caller without the permission.
var ErrAdminOnly = errs.E(errs.Forbidden, "this operation writes the catalog every tenant shares: it needs the "+
	PlatformAdminRole+" role or the "+AdminScope+" scope (a tenant's admin role is not enough)")

// ErrUserOnly refuses a user-owned operation to a service token, which has no user.
var ErrUserOnly = errs.E(errs.Forbidden, "this operation belongs to a user: a service token has none")

// RequireAdmin returns ErrAdminOnly unless the actor may perform administrative writes.
func (a Actor) RequireAdmin() error {
	if !a.Admin {
		return ErrAdminOnly
	}
	return nil
}

// RequireUser returns the actor's user id, or ErrUserOnly for a service.
func (a Actor) RequireUser() (uuid.UUID, error) {
	if a.Service || a.UserID == uuid.Nil {
		return uuid.Nil, ErrUserOnly
	}
	return a.UserID, nil
}
