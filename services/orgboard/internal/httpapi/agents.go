package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ConfigureSeatAgent configures the agent of a seat.
func (s *Server) ConfigureSeatAgent(ctx context.Context, req orgboardserver.ConfigureSeatAgentRequestObject) (orgboardserver.ConfigureSeatAgentResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	in := app.AgentInput{Name: b.Name, Monogram: b.Monogram, ApiConfigID: b.ApiConfigId, FallbackApiConfigID: b.FallbackApiConfigId,
		SkillKeys: b.SkillKeys, Docs: b.Docs, Persona: b.Persona, McpServerIDs: b.McpServerIds, ProfileID: b.ProfileId}
	if b.Autonomy != nil {
		au := domain.Autonomy(*b.Autonomy)
		in.Autonomy = &au
	}
	ag, created, err := s.app.ConfigureSeatAgent(ctx, actor, req.Id, in)
	if err != nil {
		return nil, err
	}
	if created {
		return orgboardserver.ConfigureSeatAgent201JSONResponse(agentOut(ag)), nil
	}
	return orgboardserver.ConfigureSeatAgent200JSONResponse(agentOut(ag)), nil
}

// GetSeatAgent reads the agent of a seat.
func (s *Server) GetSeatAgent(ctx context.Context, req orgboardserver.GetSeatAgentRequestObject) (orgboardserver.GetSeatAgentResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ag, err := s.app.GetSeatAgent(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetSeatAgent200JSONResponse(agentOut(ag)), nil
}

func agentOut(a domain.Agent) orgboard.Agent {
	return orgboard.Agent{
		Id: a.ID, OrganizationId: a.OrganizationID, TeamId: a.TeamID, SeatId: a.SeatID, Name: a.Name, Monogram: a.Monogram,
		Autonomy: orgboard.Autonomy(a.Autonomy), ApiConfigId: a.ApiConfigID, FallbackApiConfigId: a.FallbackApiConfigID,
		SkillKeys: a.SkillKeys, Docs: a.Docs, Persona: a.Persona, McpServerIds: a.McpServerIDs, ProfileId: a.ProfileID,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}
