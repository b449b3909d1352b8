package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertOrganization stores a new organization.
func (s *Store) InsertOrganization(ctx context.Context, o domain.Organization) error {
	return translate(s.q.InsertOrganization(ctx, orgboarddb.InsertOrganizationParams{
		ID: o.ID, Name: o.Name, CreatedBy: o.CreatedBy, CreatedAt: o.CreatedAt,
	}), "organization")
}

// GetOrganization loads an organization (CallerRole unset).
func (s *Store) GetOrganization(ctx context.Context, id uuid.UUID) (domain.Organization, error) {
	r, err := s.q.GetOrganization(ctx, id)
	if err != nil {
		return domain.Organization{}, translate(err, "organization")
	}
	return organization(r), nil
}

// LockOrganization takes the organization's row lock until the transaction ends, serialising
// membership changes of one organization.
func (s *Store) LockOrganization(ctx context.Context, id uuid.UUID) error {
	_, err := s.q.LockOrganization(ctx, id)
	return translate(err, "organization")
}

// ListOrganizationsOfUser lists the organizations user belongs to, with the user's role.
func (s *Store) ListOrganizationsOfUser(ctx context.Context, user uuid.UUID) ([]domain.Organization, error) {
	rows, err := s.q.ListOrganizationsOfUser(ctx, user)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Organization, len(rows))
	for i, r := range rows {
		out[i] = domain.Organization{ID: r.ID, Name: r.Name, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, CallerRole: domain.Role(r.Role)}
	}
	return out, nil
}

// ListAllOrganizations lists every organization (for a service acting as Owner everywhere).
func (s *Store) ListAllOrganizations(ctx context.Context) ([]domain.Organization, error) {
	rows, err := s.q.ListAllOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Organization, len(rows))
	for i, r := range rows {
		out[i] = organization(r)
	}
	return out, nil
}

func organization(r orgboarddb.Organization) domain.Organization {
	return domain.Organization{ID: r.ID, Name: r.Name, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt}
}

// InsertMember stores a membership; Conflict when the user is already a member.
func (s *Store) InsertMember(ctx context.Context, m domain.Member) error {
	return translate(s.q.InsertMembership(ctx, orgboarddb.InsertMembershipParams{
		OrganizationID: m.OrganizationID, UserID: m.UserID, Role: string(m.Role), JoinedAt: m.JoinedAt,
		TenantID: m.TenantID,
	}), "member")
}

// GetMember loads a membership; NotFound when the user is not a member.
func (s *Store) GetMember(ctx context.Context, org, user uuid.UUID) (domain.Member, error) {
	r, err := s.q.GetMembership(ctx, orgboarddb.GetMembershipParams{OrganizationID: org, UserID: user})
	if err != nil {
		return domain.Member{}, translate(err, "member")
	}
	return member(r), nil
}

// ListMembers lists an organization's members by joined_at then user id.
func (s *Store) ListMembers(ctx context.Context, org uuid.UUID) ([]domain.Member, error) {
	rows, err := s.q.ListMemberships(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Member, len(rows))
	for i, r := range rows {
		out[i] = member(r)
	}
	return out, nil
}

func member(r orgboarddb.Membership) domain.Member {
	return domain.Member{OrganizationID: r.OrganizationID, UserID: r.UserID, Role: domain.Role(r.Role), JoinedAt: r.JoinedAt,
		TenantID: r.TenantID}
}

// InsertInvitation stores an invitation (its token only as a hash).
func (s *Store) InsertInvitation(ctx context.Context, inv domain.Invitation) error {
	return translate(s.q.InsertInvitation(ctx, orgboarddb.InsertInvitationParams{
		ID: inv.ID, OrganizationID: inv.OrganizationID, Email: inv.Email, UserID: inv.UserID,
		Role: string(inv.Role), TokenSha256: inv.TokenSHA256, InvitedBy: inv.InvitedBy,
		CreatedAt: inv.CreatedAt, ExpiresAt: inv.ExpiresAt,
	}), "invitation")
}

// HasPendingInvitation reports whether the invitee (by user id or email) already has a pending
// invitation to org at now.
func (s *Store) HasPendingInvitation(ctx context.Context, org uuid.UUID, user *uuid.UUID, email *string, now time.Time) (bool, error) {
	n, err := s.q.CountPendingInvitations(ctx, orgboarddb.CountPendingInvitationsParams{
		OrganizationID: org, Now: now, UserID: user, Email: email,
	})
	return n > 0, err
}

// GetInvitationForUpdate loads and locks an invitation.
func (s *Store) GetInvitationForUpdate(ctx context.Context, id uuid.UUID) (domain.Invitation, error) {
	r, err := s.q.GetInvitationForUpdate(ctx, id)
	if err != nil {
		return domain.Invitation{}, translate(err, "invitation")
	}
	return invitation(r), nil
}

// ListInvitations lists an organization's invitations, newest first.
func (s *Store) ListInvitations(ctx context.Context, org uuid.UUID) ([]domain.Invitation, error) {
	rows, err := s.q.ListInvitations(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Invitation, len(rows))
	for i, r := range rows {
		out[i] = invitation(r)
	}
	return out, nil
}

// MarkInvitationAccepted records the acceptance.
func (s *Store) MarkInvitationAccepted(ctx context.Context, id, by uuid.UUID, at time.Time) error {
	return s.q.MarkInvitationAccepted(ctx, orgboarddb.MarkInvitationAcceptedParams{ID: id, AcceptedAt: &at, AcceptedBy: &by})
}

func invitation(r orgboarddb.Invitation) domain.Invitation {
	return domain.Invitation{
		ID: r.ID, OrganizationID: r.OrganizationID, Email: r.Email, UserID: r.UserID,
		Role: domain.Role(r.Role), InvitedBy: r.InvitedBy, CreatedAt: r.CreatedAt,
		ExpiresAt: r.ExpiresAt, AcceptedAt: r.AcceptedAt, TokenSHA256: r.TokenSha256,
	}
}
