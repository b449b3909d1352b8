package domain

import (
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// ActorKind says who performed an action.
type ActorKind string

// The actor kinds of audit entries.
const (
	ActorUser    ActorKind = "user"
	ActorService ActorKind = "service"
	ActorSystem  ActorKind = "system"
)

// AdminScope is the ServiceToken scope that acts as Owner of every organization.
const AdminScope = "orgboard:admin"

// Actor is the authenticated caller of a command.
type Actor struct {
	Kind ActorKind
	// UserID is set for a user.
	UserID uuid.UUID
	// Name is the service token's name for a service.
	Name string
	// Admin is a service holding AdminScope.
	Admin bool
	// TenantID is the tenant of the caller's token (uuid.Nil when it names none): the tenant of
	// the events the caller causes.
	TenantID uuid.UUID
}

// UserActor is a user authenticated by a JWT.
func UserActor(id uuid.UUID) Actor { return Actor{Kind: ActorUser, UserID: id} }

// ServiceActor is a caller authenticated by a service token.
func ServiceActor(name string, admin bool) Actor {
	return Actor{Kind: ActorService, Name: name, Admin: admin}
}

// SystemActor is the service itself (seeding).
func SystemActor(name string) Actor { return Actor{Kind: ActorSystem, Name: name, Admin: true} }

// IsUser reports whether the actor is a user.
func (a Actor) IsUser() bool { return a.Kind == ActorUser }

// RequireUser refuses a non-user actor: operations that act for a person (creating an
// organization, accepting an invitation, the cartable) need a user token.
func (a Actor) RequireUser() error {
	if !a.IsUser() {
		return errs.E(errs.Forbidden, "this operation needs a user token")
	}
	return nil
}

// Known reports whether the actor may act here at all: a service token needs AdminScope.
func (a Actor) Known() bool { return a.Kind != ActorService || a.Admin }

// RequireKnown refuses a service token without AdminScope: such a token may do nothing here.
func (a Actor) RequireKnown() error {
	if !a.Known() {
		return errs.Ef(errs.Forbidden, "a service token needs the %s scope", AdminScope)
	}
	return nil
}

// UserIDPtr is the user id, or nil for a service or system actor.
func (a Actor) UserIDPtr() *uuid.UUID {
	if a.IsUser() {
		id := a.UserID
		return &id
	}
	return nil
}

// TenantIDPtr is a user's tenant, or nil when the actor has none.
func (a Actor) TenantIDPtr() *uuid.UUID {
	if a.IsUser() && a.TenantID != uuid.Nil {
		id := a.TenantID
		return &id
	}
	return nil
}
