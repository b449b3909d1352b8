package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ListDivisions implements GET /api/orgboard/divisions.
func (s *Server) ListDivisions(ctx context.Context, req orgboardserver.ListDivisionsRequestObject) (orgboardserver.ListDivisionsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := s.app.ListDivisions(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListDivisions200JSONResponse{Data: mapSlice(ds, divisionOut)}, nil
}

// CreateDivision implements POST /api/orgboard/divisions.
func (s *Server) CreateDivision(ctx context.Context, req orgboardserver.CreateDivisionRequestObject) (orgboardserver.CreateDivisionResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.app.CreateDivision(ctx, actor, req.Body.OrganizationId, req.Body.Name, deref(req.Body.Description))
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateDivision201JSONResponse(divisionOut(d)), nil
}

// ListProducts implements GET /api/orgboard/products.
func (s *Server) ListProducts(ctx context.Context, req orgboardserver.ListProductsRequestObject) (orgboardserver.ListProductsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	var kind *domain.ProductKind
	if req.Params.Kind != nil {
		k := domain.ProductKind(*req.Params.Kind)
		kind = &k
	}
	ps, err := s.app.ListProducts(ctx, actor, req.Params.OrganizationId, req.Params.DivisionId, kind)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListProducts200JSONResponse{Data: mapSlice(ps, productOut)}, nil
}

// CreateProduct implements POST /api/orgboard/products.
func (s *Server) CreateProduct(ctx context.Context, req orgboardserver.CreateProductRequestObject) (orgboardserver.CreateProductResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.CreateProduct(ctx, actor, req.Body.OrganizationId, app.ProductInput{
		DivisionID: req.Body.DivisionId, Name: req.Body.Name, Kind: domain.ProductKind(req.Body.Kind),
		Description: deref(req.Body.Description),
	})
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateProduct201JSONResponse(productOut(p)), nil
}

// GetProduct implements GET /api/orgboard/products/{id}.
func (s *Server) GetProduct(ctx context.Context, req orgboardserver.GetProductRequestObject) (orgboardserver.GetProductResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetProduct(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetProduct200JSONResponse(productOut(p)), nil
}

// GetProductIdentity implements GET /products/{id}/identity.
func (s *Server) GetProductIdentity(ctx context.Context, req orgboardserver.GetProductIdentityRequestObject) (orgboardserver.GetProductIdentityResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	id, err := s.app.GetProductIdentity(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetProductIdentity200JSONResponse(identityOut(id)), nil
}

// SetProductIdentity implements PUT /products/{id}/identity.
func (s *Server) SetProductIdentity(ctx context.Context, req orgboardserver.SetProductIdentityRequestObject) (orgboardserver.SetProductIdentityResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	id, err := s.app.SetProductIdentity(ctx, actor, req.Id, req.Body.Content, req.Body.BaseVersion)
	if err != nil {
		return nil, err
	}
	return orgboardserver.SetProductIdentity200JSONResponse(identityOut(id)), nil
}

// ListProductIdentityVersions implements GET /products/{id}/identity/versions.
func (s *Server) ListProductIdentityVersions(ctx context.Context, req orgboardserver.ListProductIdentityVersionsRequestObject) (orgboardserver.ListProductIdentityVersionsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := s.app.ListProductIdentityVersions(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListProductIdentityVersions200JSONResponse{Data: mapSlice(ids, identityOut)}, nil
}
