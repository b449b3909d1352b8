package domain

import (
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// AdminScope is the service-token scope that grants the administrative operations.
const AdminScope = "content:admin"

// Actor is the authenticated caller as the application sees it.
type Actor struct {
	// UserID is the token's user (JWT sub); zero for a service token.
	UserID uuid.UUID
	// TenantID is the user's tenant, or the tenant a service token is bound to (zero when none).
	TenantID uuid.UUID
	// Service is true for a service token.
	Service bool
	// Admin is true for the admin role (JWT) or the content:admin scope (service token).
	Admin bool
	// Name identifies the caller in logs and the publication log.
	Name string
}

// ErrAdminOnly refuses an administrative operation to a caller without the permission.
var ErrAdminOnly = errs.E(errs.Forbidden, "this operation needs the admin role or the content:admin scope")

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
