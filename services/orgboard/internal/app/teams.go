package app

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateTeam creates a team, optionally under a product of the same organization (Owner only).
func (a *App) CreateTeam(ctx context.Context, actor domain.Actor, org uuid.UUID, name string, product *uuid.UUID) (domain.Team, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return domain.Team{}, errs.InvalidFields(errs.Field("body.name", "must not be blank"))
	}
	t := domain.Team{ID: a.newID(), OrganizationID: org, ProductID: product, Name: name, CreatedAt: a.now()}
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ManageStructure); err != nil {
			return err
		}
		if product != nil {
			ok, err := s.ProductInOrganization(ctx, org, *product)
			if err != nil {
				return err
			}
			if !ok {
				return errs.InvalidFields(errs.Field("body.product_id", "is not a product of the organization"))
			}
		}
		if err := s.InsertTeam(ctx, t); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionTeamCreated, Scope: domain.OrgScope(org),
			TargetType: domain.TargetTeam, TargetID: t.ID,
			After: map[string]any{"name": t.Name, "product_id": t.ProductID},
		})
	})
	return t, err
}

// ListTeams lists the teams of one organization (org given; 404 when the caller is not a member)
// or of every organization the caller belongs to.
func (a *App) ListTeams(ctx context.Context, actor domain.Actor, org, product *uuid.UUID) ([]domain.Team, error) {
	s := a.store
	if org != nil {
		if _, err := a.authorizeOrg(ctx, s, actor, *org, domain.ViewBoard); err != nil {
			return nil, err
		}
		return s.ListTeamsOfOrganization(ctx, *org, product)
	}
	if err := actor.RequireKnown(); err != nil {
		return nil, err
	}
	if !actor.IsUser() {
		return s.ListAllTeams(ctx, product)
	}
	return s.ListTeamsOfUser(ctx, actor.UserID, product)
}

// team loads a team and checks p for the caller on it; the team and the caller's standing are
// read in one statement.
func (a *App) team(ctx context.Context, s domain.Store, actor domain.Actor, id uuid.UUID, p domain.Permission) (domain.Team, domain.Standing, error) {
	t, user, err := s.GetTeamWithStanding(ctx, id, actor.UserID)
	if err != nil {
		return domain.Team{}, domain.Standing{}, err
	}
	st, err := callerStanding(actor, user)
	if err != nil {
		return t, st, err
	}
	return t, st, domain.Authorize(st, p, "team")
}

// GetTeam reads a team.
func (a *App) GetTeam(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Team, error) {
	t, _, err := a.team(ctx, a.store, actor, id, domain.ViewBoard)
	return t, err
}

// ListTeamLeads lists a team's Leads.
func (a *App) ListTeamLeads(ctx context.Context, actor domain.Actor, id uuid.UUID) ([]domain.TeamLead, error) {
	s := a.store
	if _, _, err := a.team(ctx, s, actor, id, domain.ViewBoard); err != nil {
		return nil, err
	}
	return s.ListTeamLeads(ctx, id)
}

// SetTeamLead makes a member of the team's organization a Lead of the team (Owner only;
// idempotent: no audit entry when the user already was one).
func (a *App) SetTeamLead(ctx context.Context, actor domain.Actor, teamID, user uuid.UUID) (domain.TeamLead, error) {
	var lead domain.TeamLead
	err := a.store.InTx(ctx, func(s domain.Store) error {
		t, _, err := a.team(ctx, s, actor, teamID, domain.ManageStructure)
		if err != nil {
			return err
		}
		if _, err := s.GetMember(ctx, t.OrganizationID, user); err != nil {
			if errs.KindOf(err) == errs.NotFound {
				return errs.InvalidFields(errs.Field("path.user_id", "is not a member of the organization"))
			}
			return err
		}
		l, added, err := s.AddTeamLead(ctx, t, user, a.now())
		if err != nil {
			return err
		}
		lead = l
		if !added {
			return nil
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionTeamLeadAssigned, Scope: t.Scope(),
			TargetType: domain.TargetMember, TargetID: user,
			After: map[string]any{"team_id": t.ID, "user_id": user, "role": domain.RoleLead},
		})
	})
	return lead, err
}

// RemoveTeamLead takes the Lead role on a team away from a user (Owner only).
func (a *App) RemoveTeamLead(ctx context.Context, actor domain.Actor, teamID, user uuid.UUID) error {
	return a.store.InTx(ctx, func(s domain.Store) error {
		t, _, err := a.team(ctx, s, actor, teamID, domain.ManageStructure)
		if err != nil {
			return err
		}
		removed, err := s.RemoveTeamLead(ctx, t.ID, user)
		if err != nil {
			return err
		}
		if !removed {
			return errs.E(errs.NotFound, "the user is not a Lead of the team")
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionTeamLeadRemoved, Scope: t.Scope(),
			TargetType: domain.TargetMember, TargetID: user,
			Before: map[string]any{"team_id": t.ID, "user_id": user, "role": domain.RoleLead},
		})
	})
}
