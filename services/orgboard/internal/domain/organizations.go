package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Organization is the top of the hierarchy.
type Organization struct {
	ID        uuid.UUID
	Name      string
	CreatedBy uuid.UUID
	CreatedAt time.Time
	// CallerRole is the caller's role; "" for a service caller.
	CallerRole Role
}

// Member is a user's membership of an organization.
type Member struct {
	OrganizationID uuid.UUID
	UserID         uuid.UUID
	Role           Role
	JoinedAt       time.Time
	// TenantID is the tenant the member joined with (its token's tenant_id claim); nil when unknown.
	TenantID *uuid.UUID
	// Blocked is the ban of the member, or the suspension of its tenant, while it holds; nil otherwise.
	Blocked *Block
}

// InvitationTTL is how long an invitation stays pending.
const InvitationTTL = 14 * 24 * time.Hour

// InvitationStatus is derived from the stored times.
type InvitationStatus string

// The invitation statuses.
const (
	InvitationPending  InvitationStatus = "pending"
	InvitationAccepted InvitationStatus = "accepted"
	InvitationExpired  InvitationStatus = "expired"
)

// Invitation invites a user (by user id) or a person (by email) into an organization.
type Invitation struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Email          *string
	UserID         *uuid.UUID
	Role           Role
	InvitedBy      uuid.UUID
	CreatedAt      time.Time
	ExpiresAt      time.Time
	AcceptedAt     *time.Time
	// TokenSHA256 is the hash of the acceptance token (the token itself is never stored).
	TokenSHA256 []byte
	// Token is the acceptance token, only right after creation.
	Token *string
}

// Status is the invitation's status at now.
func (i Invitation) Status(now time.Time) InvitationStatus {
	switch {
	case i.AcceptedAt != nil:
		return InvitationAccepted
	case !now.Before(i.ExpiresAt):
		return InvitationExpired
	}
	return InvitationPending
}

// OrganizationStore keeps organizations, their members and invitations.
type OrganizationStore interface {
	InsertOrganization(ctx context.Context, o Organization) error
	GetOrganization(ctx context.Context, id uuid.UUID) (Organization, error)
	// LockOrganization holds the organization's row until the transaction ends.
	LockOrganization(ctx context.Context, id uuid.UUID) error
	ListOrganizationsOfUser(ctx context.Context, user uuid.UUID) ([]Organization, error)
	ListAllOrganizations(ctx context.Context) ([]Organization, error)

	InsertMember(ctx context.Context, m Member) error
	GetMember(ctx context.Context, org, user uuid.UUID) (Member, error)
	ListMembers(ctx context.Context, org uuid.UUID) ([]Member, error)

	InsertInvitation(ctx context.Context, inv Invitation) error
	HasPendingInvitation(ctx context.Context, org uuid.UUID, user *uuid.UUID, email *string, now time.Time) (bool, error)
	GetInvitationForUpdate(ctx context.Context, id uuid.UUID) (Invitation, error)
	ListInvitations(ctx context.Context, org uuid.UUID) ([]Invitation, error)
	MarkInvitationAccepted(ctx context.Context, id, by uuid.UUID, at time.Time) error
}
