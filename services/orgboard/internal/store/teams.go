package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertTeam stores a team; Invalid when its product is not of the same organization.
func (s *Store) InsertTeam(ctx context.Context, t domain.Team) error {
	return translate(s.q.InsertTeam(ctx, orgboarddb.InsertTeamParams{
		ID: t.ID, OrganizationID: t.OrganizationID, ProductID: t.ProductID, Name: t.Name, CreatedAt: t.CreatedAt,
	}), "team")
}

// GetTeam loads a team.
func (s *Store) GetTeam(ctx context.Context, id uuid.UUID) (domain.Team, error) {
	r, err := s.q.GetTeam(ctx, id)
	if err != nil {
		return domain.Team{}, translate(err, "team")
	}
	return team(r), nil
}

// GetTeamWithStanding loads a team, with what user holds along its scope chain, in one
// statement.
func (s *Store) GetTeamWithStanding(ctx context.Context, id, user uuid.UUID) (domain.Team, domain.Standing, error) {
	r, err := s.q.GetTeamWithStanding(ctx, orgboarddb.GetTeamWithStandingParams{ID: id, UserID: user})
	if err != nil {
		return domain.Team{}, domain.Standing{}, translate(err, "team")
	}
	return team(r.Team), standingOf(r.Role, r.TeamLead, r.LeadsSomeTeam), nil
}

// ListTeamsOfOrganization lists an organization's teams, optionally of one product.
func (s *Store) ListTeamsOfOrganization(ctx context.Context, org uuid.UUID, product *uuid.UUID) ([]domain.Team, error) {
	rows, err := s.q.ListTeamsOfOrganization(ctx, orgboarddb.ListTeamsOfOrganizationParams{OrganizationID: org, ProductID: product})
	return teams(rows, err)
}

// ListTeamsOfUser lists the teams of every organization user belongs to.
func (s *Store) ListTeamsOfUser(ctx context.Context, user uuid.UUID, product *uuid.UUID) ([]domain.Team, error) {
	rows, err := s.q.ListTeamsOfUser(ctx, orgboarddb.ListTeamsOfUserParams{UserID: user, ProductID: product})
	return teams(rows, err)
}

// ListAllTeams lists every team (for a service acting as Owner everywhere).
func (s *Store) ListAllTeams(ctx context.Context, product *uuid.UUID) ([]domain.Team, error) {
	rows, err := s.q.ListAllTeams(ctx, product)
	return teams(rows, err)
}

func teams(rows []orgboarddb.Team, err error) ([]domain.Team, error) {
	if err != nil {
		return nil, err
	}
	out := make([]domain.Team, len(rows))
	for i, r := range rows {
		out[i] = team(r)
	}
	return out, nil
}

func team(r orgboarddb.Team) domain.Team {
	return domain.Team{ID: r.ID, OrganizationID: r.OrganizationID, ProductID: r.ProductID, Name: r.Name, CreatedAt: r.CreatedAt}
}

// AddTeamLead makes user a Lead of t (idempotent); added is false when it already was one.
func (s *Store) AddTeamLead(ctx context.Context, t domain.Team, user uuid.UUID, at time.Time) (lead domain.TeamLead, added bool, err error) {
	r, err := s.q.UpsertTeamLead(ctx, orgboarddb.UpsertTeamLeadParams{
		TeamID: t.ID, OrganizationID: t.OrganizationID, UserID: user, AssignedAt: at,
	})
	if err != nil {
		return domain.TeamLead{}, false, translate(err, "team lead")
	}
	return domain.TeamLead{TeamID: r.TeamID, UserID: r.UserID, AssignedAt: r.AssignedAt}, r.Inserted, nil
}

// RemoveTeamLead removes user's Lead role on team; removed is false when there was none.
func (s *Store) RemoveTeamLead(ctx context.Context, team, user uuid.UUID) (removed bool, err error) {
	n, err := s.q.DeleteTeamLead(ctx, orgboarddb.DeleteTeamLeadParams{TeamID: team, UserID: user})
	return n > 0, err
}

// ListTeamLeads lists a team's Leads.
func (s *Store) ListTeamLeads(ctx context.Context, team uuid.UUID) ([]domain.TeamLead, error) {
	rows, err := s.q.ListTeamLeads(ctx, team)
	if err != nil {
		return nil, err
	}
	out := make([]domain.TeamLead, len(rows))
	for i, r := range rows {
		out[i] = domain.TeamLead{TeamID: r.TeamID, UserID: r.UserID, AssignedAt: r.AssignedAt}
	}
	return out, nil
}
