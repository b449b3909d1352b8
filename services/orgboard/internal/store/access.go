package store

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// Standing loads what user holds along [team, org]; the zero Standing when user is not a member.
func (s *Store) Standing(ctx context.Context, org uuid.UUID, team *uuid.UUID, user uuid.UUID) (domain.Standing, error) {
	row, err := s.q.GetStanding(ctx, orgboarddb.GetStandingParams{TeamID: team, OrganizationID: org, UserID: user})
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Standing{}, nil
	}
	if err != nil {
		return domain.Standing{}, err
	}
	return standingOf(&row.Role, row.TeamLead, row.LeadsSomeTeam), nil
}

// standingOf is the Standing of a membership's role (nil: not a member) and Lead flags.
func standingOf(role *string, teamLead, leadsSomeTeam bool) domain.Standing {
	if role == nil {
		return domain.Standing{}
	}
	return domain.Standing{OrgRole: domain.Role(*role), TeamLead: teamLead, LeadsSomeTeam: leadsSomeTeam}
}
