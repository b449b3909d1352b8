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
	return domain.Standing{OrgRole: domain.Role(row.Role), TeamLead: row.TeamLead, LeadsSomeTeam: row.LeadsSomeTeam}, nil
}
