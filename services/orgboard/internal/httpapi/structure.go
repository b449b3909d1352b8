package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ListDivisions implements GET /api/orgboard/divisions.
func (s *Server) ListDivisions(ctx context.Context, req orgboard.ListDivisionsRequestObject) (orgboard.ListDivisionsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := s.app.ListDivisions(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	return orgboard.ListDivisions200JSONResponse{Data: mapSlice(ds, divisionOut)}, nil
}

// CreateDivision implements POST /api/orgboard/divisions.
func (s *Server) CreateDivision(ctx context.Context, req orgboard.CreateDivisionRequestObject) (orgboard.CreateDivisionResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.app.CreateDivision(ctx, actor, req.Body.OrganizationId, req.Body.Name, deref(req.Body.Description))
	if err != nil {
		return nil, err
	}
	return orgboard.CreateDivision201JSONResponse(divisionOut(d)), nil
}

// ListProducts implements GET /api/orgboard/products.
func (s *Server) ListProducts(ctx context.Context, req orgboard.ListProductsRequestObject) (orgboard.ListProductsResponseObject, error) {
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
	return orgboard.ListProducts200JSONResponse{Data: mapSlice(ps, productOut)}, nil
}

// CreateProduct implements POST /api/orgboard/products.
func (s *Server) CreateProduct(ctx context.Context, req orgboard.CreateProductRequestObject) (orgboard.CreateProductResponseObject, error) {
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
	return orgboard.CreateProduct201JSONResponse(productOut(p)), nil
}

// GetProduct implements GET /api/orgboard/products/{id}.
func (s *Server) GetProduct(ctx context.Context, req orgboard.GetProductRequestObject) (orgboard.GetProductResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetProduct(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.GetProduct200JSONResponse(productOut(p)), nil
}

// GetProductIdentity implements GET /products/{id}/identity.
func (s *Server) GetProductIdentity(ctx context.Context, req orgboard.GetProductIdentityRequestObject) (orgboard.GetProductIdentityResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	id, err := s.app.GetProductIdentity(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.GetProductIdentity200JSONResponse(identityOut(id)), nil
}

// SetProductIdentity implements PUT /products/{id}/identity.
func (s *Server) SetProductIdentity(ctx context.Context, req orgboard.SetProductIdentityRequestObject) (orgboard.SetProductIdentityResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	id, err := s.app.SetProductIdentity(ctx, actor, req.Id, req.Body.Content, req.Body.BaseVersion)
	if err != nil {
		return nil, err
	}
	return orgboard.SetProductIdentity200JSONResponse(identityOut(id)), nil
}

// ListProductIdentityVersions implements GET /products/{id}/identity/versions.
func (s *Server) ListProductIdentityVersions(ctx context.Context, req orgboard.ListProductIdentityVersionsRequestObject) (orgboard.ListProductIdentityVersionsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := s.app.ListProductIdentityVersions(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.ListProductIdentityVersions200JSONResponse{Data: mapSlice(ids, identityOut)}, nil
}
