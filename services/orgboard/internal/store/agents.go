package store

import (
	"context"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertAgent stores a new agent.
func (s *Store) InsertAgent(ctx context.Context, a domain.Agent) error {
	return translate(s.q.InsertAgent(ctx, orgboarddb.InsertAgentParams{
		ID: a.ID, OrganizationID: a.OrganizationID, TeamID: a.TeamID, SeatID: a.SeatID, Name: a.Name, Monogram: a.Monogram,
		Autonomy: string(a.Autonomy), ApiConfigID: a.ApiConfigID, FallbackApiConfigID: a.FallbackApiConfigID,
		SkillKeys: nonNil(a.SkillKeys), Docs: nonNil(a.Docs), Persona: a.Persona, McpServerIds: nonNilIDs(a.McpServerIDs),
		ProfileID: a.ProfileID, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}), "agent")
}

// UpdateAgent replaces an agent's configuration.
func (s *Store) UpdateAgent(ctx context.Context, a domain.Agent) error {
	return translate(s.q.UpdateAgent(ctx, orgboarddb.UpdateAgentParams{
		ID: a.ID, Name: a.Name, Monogram: a.Monogram, Autonomy: string(a.Autonomy), ApiConfigID: a.ApiConfigID,
		FallbackApiConfigID: a.FallbackApiConfigID, SkillKeys: nonNil(a.SkillKeys), Docs: nonNil(a.Docs),
		Persona: a.Persona, McpServerIds: nonNilIDs(a.McpServerIDs), ProfileID: a.ProfileID, UpdatedAt: a.UpdatedAt,
	}), "agent")
}

// GetAgent loads an agent.
func (s *Store) GetAgent(ctx context.Context, id uuid.UUID) (domain.Agent, error) {
	r, err := s.q.GetAgent(ctx, id)
	if err != nil {
		return domain.Agent{}, translate(err, "agent")
	}
	return agent(r), nil
}

// GetAgentBySeat loads the agent of a seat.
func (s *Store) GetAgentBySeat(ctx context.Context, seat uuid.UUID) (domain.Agent, error) {
	r, err := s.q.GetAgentBySeat(ctx, seat)
	if err != nil {
		return domain.Agent{}, translate(err, "agent")
	}
	return agent(r), nil
}

func agent(r orgboarddb.Agent) domain.Agent {
	return domain.Agent{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, SeatID: r.SeatID, Name: r.Name, Monogram: r.Monogram,
		Autonomy: domain.Autonomy(r.Autonomy), ApiConfigID: r.ApiConfigID, FallbackApiConfigID: r.FallbackApiConfigID,
		SkillKeys: nonNil(r.SkillKeys), Docs: nonNil(r.Docs), Persona: r.Persona, McpServerIDs: nonNilIDs(r.McpServerIds),
		ProfileID: r.ProfileID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}
