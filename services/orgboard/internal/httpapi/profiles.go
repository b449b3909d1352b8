package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/domain/agentsmd"
)

// UploadAgentProfile uploads an AGENTS.md.
func (s *Server) UploadAgentProfile(ctx context.Context, req orgboardserver.UploadAgentProfileRequestObject) (orgboardserver.UploadAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	content, err := io.ReadAll(io.LimitReader(req.Body, agentsmd.MaxSize+1))
	var maxed *http.MaxBytesError
	switch {
	case errors.As(err, &maxed) || len(content) > agentsmd.MaxSize:
		return nil, errs.Ef(errs.TooLarge, "an AGENTS.md may have at most %d bytes", agentsmd.MaxSize)
	case err != nil:
		return nil, errs.Wrap(errs.Invalid, "the body could not be read", err)
	}
	p, err := s.app.UploadAgentProfile(ctx, actor, req.Params.OrganizationId, content)
	if err != nil {
		return nil, err
	}
	return orgboardserver.UploadAgentProfile201JSONResponse(profileOut(p)), nil
}

// ListAgentProfiles lists the resolvable winner of each key.
func (s *Server) ListAgentProfiles(ctx context.Context, req orgboardserver.ListAgentProfilesRequestObject) (orgboardserver.ListAgentProfilesResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := s.app.ListAgentProfiles(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListAgentProfiles200JSONResponse(profileList(ps)), nil
}

// ListAgentProfileVersions lists the versions of a key.
func (s *Server) ListAgentProfileVersions(ctx context.Context, req orgboardserver.ListAgentProfileVersionsRequestObject) (orgboardserver.ListAgentProfileVersionsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := s.app.ListAgentProfileVersions(ctx, actor, req.Params.OrganizationId, req.Key)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListAgentProfileVersions200JSONResponse(profileList(ps)), nil
}

// ListMarketplaceProfiles lists the marketplace.
func (s *Server) ListMarketplaceProfiles(ctx context.Context, req orgboardserver.ListMarketplaceProfilesRequestObject) (orgboardserver.ListMarketplaceProfilesResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	page, size := 1, 20
	if req.Params.Page != nil {
		page = *req.Params.Page
	}
	if req.Params.PageSize != nil {
		size = *req.Params.PageSize
	}
	q := ""
	if req.Params.Q != nil {
		q = *req.Params.Q
	}
	res, err := s.app.ListMarketplace(ctx, actor, req.Params.OrganizationId, q, page, size)
	if err != nil {
		return nil, err
	}
	out := orgboard.MarketplacePage{Data: make([]orgboard.MarketplaceEntry, len(res.Entries)),
		Meta: orgboard.PaginationMeta{Page: page, PageSize: size, Total: int(res.Total), HasMore: int64(page*size) < res.Total}}
	for i, e := range res.Entries {
		p := e.Profile
		out.Data[i] = orgboard.MarketplaceEntry{Id: p.ID, OrganizationId: deref(p.OrganizationID), OrganizationName: e.OrganizationName,
			ProfileKey: p.Key, Version: p.Version, Name: p.Name, Description: p.Description, Skills: p.Skills, Tools: p.Tools,
			Autonomy: orgboard.Autonomy(p.Autonomy), PublishedAt: deref(p.PublishedAt), AlreadyInLibrary: e.AlreadyInLibrary}
	}
	return orgboardserver.ListMarketplaceProfiles200JSONResponse(out), nil
}

// GetAgentProfile reads a profile.
func (s *Server) GetAgentProfile(ctx context.Context, req orgboardserver.GetAgentProfileRequestObject) (orgboardserver.GetAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetAgentProfile(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetAgentProfile200JSONResponse(profileOut(p)), nil
}

// PublishAgentProfile publishes a profile.
func (s *Server) PublishAgentProfile(ctx context.Context, req orgboardserver.PublishAgentProfileRequestObject) (orgboardserver.PublishAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	var vis domain.ProfileVisibility
	if req.Body != nil && req.Body.Visibility != nil {
		vis = domain.ProfileVisibility(*req.Body.Visibility)
	}
	p, err := s.app.PublishAgentProfile(ctx, actor, req.Id, vis)
	if err != nil {
		return nil, err
	}
	return orgboardserver.PublishAgentProfile200JSONResponse(profileOut(p)), nil
}

// UnpublishAgentProfile unpublishes a profile.
func (s *Server) UnpublishAgentProfile(ctx context.Context, req orgboardserver.UnpublishAgentProfileRequestObject) (orgboardserver.UnpublishAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.UnpublishAgentProfile(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.UnpublishAgentProfile200JSONResponse(profileOut(p)), nil
}

// ForkAgentProfile forks a profile.
func (s *Server) ForkAgentProfile(ctx context.Context, req orgboardserver.ForkAgentProfileRequestObject) (orgboardserver.ForkAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.ForkAgentProfile(ctx, actor, req.Id, app.ForkInput{OrganizationID: req.Body.OrganizationId,
		Key: req.Body.ProfileKey, Version: req.Body.Version})
	if err != nil {
		return nil, err
	}
	return orgboardserver.ForkAgentProfile201JSONResponse(profileOut(p)), nil
}

// InstallAgentProfile installs a marketplace profile.
func (s *Server) InstallAgentProfile(ctx context.Context, req orgboardserver.InstallAgentProfileRequestObject) (orgboardserver.InstallAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.InstallAgentProfile(ctx, actor, req.Id, req.Body.OrganizationId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.InstallAgentProfile201JSONResponse(profileOut(p)), nil
}

func profileList(ps []domain.AgentProfile) orgboard.AgentProfileList {
	out := orgboard.AgentProfileList{Data: make([]orgboard.AgentProfile, len(ps))}
	for i, p := range ps {
		out.Data[i] = profileOut(p)
	}
	return out
}

func profileOut(p domain.AgentProfile) orgboard.AgentProfile {
	return orgboard.AgentProfile{
		Id: p.ID, OrganizationId: p.OrganizationID, ProfileKey: p.Key, Version: p.Version, Name: p.Name,
		Description: p.Description, Origin: orgboard.ProfileOrigin(p.Origin), Visibility: orgboard.ProfileVisibility(p.Visibility),
		Status: orgboard.ProfileStatus(p.Status), Skills: p.Skills, Tools: p.Tools, Autonomy: orgboard.Autonomy(p.Autonomy),
		Content: p.Content, Body: p.Body, ForkedFrom: p.ForkedFrom, InstalledFrom: p.InstalledFrom,
		PublishedAt: p.PublishedAt, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}
