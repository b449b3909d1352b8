package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateOrganization creates an organization whose first Owner is the calling user.
func (a *App) CreateOrganization(ctx context.Context, actor domain.Actor, name string) (domain.Organization, error) {
	if err := actor.RequireUser(); err != nil {
		return domain.Organization{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return domain.Organization{}, errs.InvalidFields(errs.Field("body.name", "must not be blank"))
	}
	now := a.now()
	org := domain.Organization{ID: a.newID(), Name: name, CreatedBy: actor.UserID, CreatedAt: now, CallerRole: domain.RoleOwner}
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if err := s.InsertOrganization(ctx, org); err != nil {
			return err
		}
		if err := s.InsertMember(ctx, domain.Member{OrganizationID: org.ID, UserID: actor.UserID, Role: domain.RoleOwner, JoinedAt: now,
			TenantID: actor.TenantIDPtr()}); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionOrganizationCreated, Scope: domain.OrgScope(org.ID),
			TargetType: domain.TargetOrganization, TargetID: org.ID,
			After: map[string]any{"name": org.Name, "owner": actor.UserID},
		})
	})
	return org, err
}

// ListOrganizations lists the caller's organizations: every one for a service acting as Owner,
// none for another service token (the contract declares no 403 here).
func (a *App) ListOrganizations(ctx context.Context, actor domain.Actor) ([]domain.Organization, error) {
	if !actor.Known() {
		return []domain.Organization{}, nil
	}
	if !actor.IsUser() {
		return a.store.ListAllOrganizations(ctx)
	}
	return a.store.ListOrganizationsOfUser(ctx, actor.UserID)
}

// GetOrganization reads an organization the caller belongs to, with the caller's role.
func (a *App) GetOrganization(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Organization, error) {
	s := a.store
	st, err := a.authorizeOrg(ctx, s, actor, id, domain.ViewBoard)
	if err != nil {
		return domain.Organization{}, err
	}
	org, err := s.GetOrganization(ctx, id)
	if err != nil {
		return domain.Organization{}, err
	}
	if !st.ServiceAdmin {
		org.CallerRole = st.OrgRole
	}
	return org, nil
}

// ListMembers lists the members of an organization the caller belongs to.
func (a *App) ListMembers(ctx context.Context, actor domain.Actor, org uuid.UUID) ([]domain.Member, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ViewBoard); err != nil {
		return nil, err
	}
	ms, err := s.ListMembers(ctx, org)
	if err != nil {
		return nil, err
	}
	return a.withBlocks(ctx, s, org, ms)
}

// InviteInput names the invitee: exactly one of Email and UserID.
type InviteInput struct {
	Email  *string
	UserID *uuid.UUID
	Role   domain.Role
}

// CreateInvitation invites a user or an email into an organization (Owner only). The returned
// invitation carries its acceptance token, which is stored only as a hash.
func (a *App) CreateInvitation(ctx context.Context, actor domain.Actor, org uuid.UUID, in InviteInput) (domain.Invitation, error) {
	if (in.Email == nil) == (in.UserID == nil) {
		return domain.Invitation{}, errs.InvalidFields(errs.Field("body", "give exactly one of email and user_id"))
	}
	if _, ok := domain.ParseOrgRole(string(in.Role)); !ok {
		return domain.Invitation{}, errs.InvalidFields(errs.Field("body.role", "must be Owner or Member"))
	}
	if in.Email != nil {
		e := strings.TrimSpace(*in.Email)
		in.Email = &e
	}
	token, sum, err := newInvitationToken()
	if err != nil {
		return domain.Invitation{}, err
	}
	now := a.now()
	inv := domain.Invitation{
		ID: a.newID(), OrganizationID: org, Email: in.Email, UserID: in.UserID, Role: in.Role,
		InvitedBy: createdBy(actor), CreatedAt: now, ExpiresAt: now.Add(domain.InvitationTTL),
		TokenSHA256: sum, Token: &token,
	}
	err = a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ManageMembers); err != nil {
			return err
		}
		// Membership changes of one organization are serialised, so two concurrent invitations
		// of the same invitee cannot both pass the checks below.
		if err := s.LockOrganization(ctx, org); err != nil {
			return err
		}
		if in.UserID != nil {
			_, err := s.GetMember(ctx, org, *in.UserID)
			switch {
			case err == nil:
				return errs.E(errs.Conflict, "the user is already a member of the organization")
			case errs.KindOf(err) != errs.NotFound:
				return err
			}
		}
		pending, err := s.HasPendingInvitation(ctx, org, in.UserID, in.Email, now)
		if err != nil {
			return err
		}
		if pending {
			return errs.E(errs.Conflict, "the invitee already has a pending invitation")
		}
		if err := s.InsertInvitation(ctx, inv); err != nil {
			return err
		}
		after := map[string]any{"role": inv.Role, "expires_at": inv.ExpiresAt}
		if inv.Email != nil {
			after["email"] = *inv.Email
		}
		if inv.UserID != nil {
			after["user_id"] = *inv.UserID
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionInvitationCreated, Scope: domain.OrgScope(org),
			TargetType: domain.TargetInvitation, TargetID: inv.ID, After: after,
		})
	})
	return inv, err
}

// ListInvitations lists an organization's invitations (Owner only), without tokens.
func (a *App) ListInvitations(ctx context.Context, actor domain.Actor, org uuid.UUID) ([]domain.Invitation, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ManageMembers); err != nil {
		return nil, err
	}
	return s.ListInvitations(ctx, org)
}

// AcceptInvitation makes the calling user a member with the invited role. An invitation that is
// not addressed to the caller (another user id, or a wrong token for an email) is NotFound; one
// that is no longer pending is a Conflict.
func (a *App) AcceptInvitation(ctx context.Context, actor domain.Actor, id uuid.UUID, token *string) (domain.Member, error) {
	if err := actor.RequireUser(); err != nil {
		return domain.Member{}, err
	}
	var m domain.Member
	err := a.store.InTx(ctx, func(s domain.Store) error {
		inv, err := s.GetInvitationForUpdate(ctx, id)
		if err != nil {
			return err
		}
		if !addressedTo(inv, actor.UserID, token) {
			return errs.E(errs.NotFound, "invitation not found")
		}
		now := a.now()
		if st := inv.Status(now); st != domain.InvitationPending {
			return errs.Ef(errs.Conflict, "the invitation is %s", st)
		}
		m = domain.Member{OrganizationID: inv.OrganizationID, UserID: actor.UserID, Role: inv.Role, JoinedAt: now,
			TenantID: actor.TenantIDPtr()}
		if err := s.InsertMember(ctx, m); err != nil {
			return err
		}
		if err := s.MarkInvitationAccepted(ctx, inv.ID, actor.UserID, now); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionMemberJoined, Scope: domain.OrgScope(inv.OrganizationID),
			TargetType: domain.TargetMember, TargetID: actor.UserID,
			After: map[string]any{"user_id": actor.UserID, "role": m.Role, "invitation_id": inv.ID},
		})
	})
	return m, err
}

func addressedTo(inv domain.Invitation, user uuid.UUID, token *string) bool {
	if inv.UserID != nil {
		return *inv.UserID == user
	}
	if token == nil {
		return false
	}
	sum := sha256.Sum256([]byte(*token))
	return subtle.ConstantTimeCompare(sum[:], inv.TokenSHA256) == 1
}

func newInvitationToken() (token string, sum []byte, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, errors.Join(errors.New("invitation token"), err)
	}
	token = "inv_" + base64.RawURLEncoding.EncodeToString(b)
	s := sha256.Sum256([]byte(token))
	return token, s[:], nil
}
