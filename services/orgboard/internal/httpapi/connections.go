package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateApiConfig creates a model connection.
func (s *Server) CreateApiConfig(ctx context.Context, req orgboardserver.CreateApiConfigRequestObject) (orgboardserver.CreateApiConfigResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	c, err := s.app.CreateApiConfig(ctx, actor, app.ApiConfigInput{OrganizationID: b.OrganizationId, Name: b.Name,
		Provider: string(b.Provider), Endpoint: b.Endpoint, Model: b.Model, APIKey: b.ApiKey})
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateApiConfig201JSONResponse(apiConfigOut(c)), nil
}

// ListApiConfigs lists model connections.
func (s *Server) ListApiConfigs(ctx context.Context, req orgboardserver.ListApiConfigsRequestObject) (orgboardserver.ListApiConfigsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := s.app.ListApiConfigs(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	out := orgboard.ApiConfigList{Data: make([]orgboard.ApiConfig, len(cs))}
	for i, c := range cs {
		out.Data[i] = apiConfigOut(c)
	}
	return orgboardserver.ListApiConfigs200JSONResponse(out), nil
}

// DeleteApiConfig deletes a model connection.
func (s *Server) DeleteApiConfig(ctx context.Context, req orgboardserver.DeleteApiConfigRequestObject) (orgboardserver.DeleteApiConfigResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteApiConfig(ctx, actor, req.Id); err != nil {
		return nil, err
	}
	return orgboardserver.DeleteApiConfig204Response{}, nil
}

// apiConfigOut never carries the key: the wire type has no field for it.
func apiConfigOut(c domain.ApiConfig) orgboard.ApiConfig {
	return orgboard.ApiConfig{Id: c.ID, OrganizationId: c.OrganizationID, Name: c.Name, Provider: orgboard.ModelProvider(c.Provider),
		Endpoint: c.Endpoint, Model: c.Model, KeyHint: c.KeyHint, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt}
}
