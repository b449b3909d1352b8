package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

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
