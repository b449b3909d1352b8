package httpapi

import (
	"context"
	"time"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateOrganization implements POST /api/orgboard/organizations.
func (s *Server) CreateOrganization(ctx context.Context, req orgboardserver.CreateOrganizationRequestObject) (orgboardserver.CreateOrganizationResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.app.CreateOrganization(ctx, actor, req.Body.Name)
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateOrganization201JSONResponse(organizationOut(o)), nil
}

// ListOrganizations implements GET /api/orgboard/organizations.
func (s *Server) ListOrganizations(ctx context.Context, _ orgboardserver.ListOrganizationsRequestObject) (orgboardserver.ListOrganizationsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	orgs, err := s.app.ListOrganizations(ctx, actor)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListOrganizations200JSONResponse{Data: mapSlice(orgs, organizationOut)}, nil
}

// GetOrganization implements GET /api/orgboard/organizations/{id}.
func (s *Server) GetOrganization(ctx context.Context, req orgboardserver.GetOrganizationRequestObject) (orgboardserver.GetOrganizationResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.app.GetOrganization(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetOrganization200JSONResponse(organizationOut(o)), nil
}

// ListOrganizationMembers implements GET /api/orgboard/organizations/{id}/members.
func (s *Server) ListOrganizationMembers(ctx context.Context, req orgboardserver.ListOrganizationMembersRequestObject) (orgboardserver.ListOrganizationMembersResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.app.ListMembers(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListOrganizationMembers200JSONResponse{Data: mapSlice(ms, memberOut)}, nil
}

// CreateInvitation implements POST /api/orgboard/organizations/{id}/invitations.
func (s *Server) CreateInvitation(ctx context.Context, req orgboardserver.CreateInvitationRequestObject) (orgboardserver.CreateInvitationResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := app.InviteInput{UserID: req.Body.UserId, Role: domain.Role(req.Body.Role)}
	if req.Body.Email != nil {
		e := string(*req.Body.Email)
		in.Email = &e
	}
	inv, err := s.app.CreateInvitation(ctx, actor, req.Id, in)
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateInvitation201JSONResponse(invitationOut(time.Now())(inv)), nil
}

// ListInvitations implements GET /api/orgboard/organizations/{id}/invitations.
func (s *Server) ListInvitations(ctx context.Context, req orgboardserver.ListInvitationsRequestObject) (orgboardserver.ListInvitationsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	invs, err := s.app.ListInvitations(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListInvitations200JSONResponse{Data: mapSlice(invs, invitationOut(time.Now()))}, nil
}

// AcceptInvitation implements POST /api/orgboard/invitations/{id}/accept.
func (s *Server) AcceptInvitation(ctx context.Context, req orgboardserver.AcceptInvitationRequestObject) (orgboardserver.AcceptInvitationResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	var token *string
	if req.Body != nil {
		token = req.Body.Token
	}
	m, err := s.app.AcceptInvitation(ctx, actor, req.Id, token)
	if err != nil {
		return nil, err
	}
	return orgboardserver.AcceptInvitation200JSONResponse(memberOut(m)), nil
}
