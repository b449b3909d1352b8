package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Team belongs to an organization and optionally to a product of it.
type Team struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	ProductID      *uuid.UUID
	Name           string
	CreatedAt      time.Time
}

// Scope is the team's place in the scope chain.
func (t Team) Scope() Scope { return TeamScope(t.OrganizationID, t.ID) }

// TeamLead is a member holding the Lead role on a team.
type TeamLead struct {
	TeamID     uuid.UUID
	UserID     uuid.UUID
	AssignedAt time.Time
}

// TeamStore keeps teams and their Leads.
type TeamStore interface {
	InsertTeam(ctx context.Context, t Team) error
	GetTeam(ctx context.Context, id uuid.UUID) (Team, error)
	// GetTeamWithStanding reads a team and what user holds along its scope chain (the zero
	// Standing when user is not a member of its organization) together.
	GetTeamWithStanding(ctx context.Context, id, user uuid.UUID) (Team, Standing, error)
	ListTeamsOfOrganization(ctx context.Context, org uuid.UUID, product *uuid.UUID) ([]Team, error)
	ListTeamsOfUser(ctx context.Context, user uuid.UUID, product *uuid.UUID) ([]Team, error)
	ListAllTeams(ctx context.Context, product *uuid.UUID) ([]Team, error)
	// AddTeamLead makes user a Lead of t; added is false when the user already was one.
	AddTeamLead(ctx context.Context, t Team, user uuid.UUID, at time.Time) (lead TeamLead, added bool, err error)
	RemoveTeamLead(ctx context.Context, team, user uuid.UUID) (removed bool, err error)
	ListTeamLeads(ctx context.Context, team uuid.UUID) ([]TeamLead, error)
}
