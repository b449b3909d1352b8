package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
)

// CreateTeam implements POST /api/orgboard/teams.
func (s *Server) CreateTeam(ctx context.Context, req orgboardserver.CreateTeamRequestObject) (orgboardserver.CreateTeamResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.CreateTeam(ctx, actor, req.Body.OrganizationId, req.Body.Name, req.Body.ProductId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateTeam201JSONResponse(teamOut(t)), nil
}

// ListTeams implements GET /api/orgboard/teams.
func (s *Server) ListTeams(ctx context.Context, req orgboardserver.ListTeamsRequestObject) (orgboardserver.ListTeamsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := s.app.ListTeams(ctx, actor, req.Params.OrganizationId, req.Params.ProductId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListTeams200JSONResponse{Data: mapSlice(ts, teamOut)}, nil
}

// GetTeam implements GET /api/orgboard/teams/{id}.
func (s *Server) GetTeam(ctx context.Context, req orgboardserver.GetTeamRequestObject) (orgboardserver.GetTeamResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.GetTeam(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetTeam200JSONResponse(teamOut(t)), nil
}

// ListTeamLeads implements GET /api/orgboard/teams/{id}/leads.
func (s *Server) ListTeamLeads(ctx context.Context, req orgboardserver.ListTeamLeadsRequestObject) (orgboardserver.ListTeamLeadsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := s.app.ListTeamLeads(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListTeamLeads200JSONResponse{Data: mapSlice(ls, leadOut)}, nil
}

// SetTeamLead implements PUT /api/orgboard/teams/{id}/leads/{user_id}.
func (s *Server) SetTeamLead(ctx context.Context, req orgboardserver.SetTeamLeadRequestObject) (orgboardserver.SetTeamLeadResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.app.SetTeamLead(ctx, actor, req.Id, req.UserId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.SetTeamLead200JSONResponse(leadOut(l)), nil
}

// RemoveTeamLead implements DELETE /api/orgboard/teams/{id}/leads/{user_id}.
func (s *Server) RemoveTeamLead(ctx context.Context, req orgboardserver.RemoveTeamLeadRequestObject) (orgboardserver.RemoveTeamLeadResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.RemoveTeamLead(ctx, actor, req.Id, req.UserId); err != nil {
		return nil, err
	}
	return orgboardserver.RemoveTeamLead204Response{}, nil
}
