package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func containerOut(c domain.Container) content.Container {
	return content.Container{Id: c.ID, Slug: c.Slug, Name: c.Name, Description: c.Description,
		Keywords: c.Keywords, NewsText: c.NewsText, Image: c.Image, Demo: c.Demo, FullDemo: c.FullDemo,
		MiniDemo: c.MiniDemo, IsPublished: c.IsPublished, IsPremium: c.IsPremium, IsMockup: c.IsMockup,
		PrimaryMode: c.PrimaryMode, RateAvg: c.RateAvg, RateCount: c.RateCount, UseCount: c.UseCount}
}

// CreateContainer is POST /containers.
func (s *Server) CreateContainer(ctx context.Context, r contentserver.CreateContainerRequestObject) (contentserver.CreateContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	c, err := s.app.CreateContainer(ctx, a, domain.ContainerFields{Slug: &b.Slug, Name: &b.Name,
		PrimaryMode: &b.PrimaryMode, Description: b.Description, IsPremium: b.IsPremium,
		IsMockup: b.IsMockup, CategoryIDs: b.CategoryIds, TagIDs: b.TagIds})
	if err != nil {
		return nil, err
	}
	return contentserver.CreateContainer201JSONResponse(containerOut(c)), nil
}

// UpdateContainer is PATCH /containers/{container_id}.
func (s *Server) UpdateContainer(ctx context.Context, r contentserver.UpdateContainerRequestObject) (contentserver.UpdateContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	c, err := s.app.UpdateContainer(ctx, a, r.ContainerId, domain.ContainerFields{Slug: b.Slug, Name: b.Name,
		PrimaryMode: b.PrimaryMode, Description: b.Description, IsPremium: b.IsPremium,
		IsMockup: b.IsMockup, CategoryIDs: b.CategoryIds, TagIDs: b.TagIds})
	if err != nil {
		return nil, err
	}
	return contentserver.UpdateContainer200JSONResponse(containerOut(c)), nil
}

// DeleteContainer is DELETE /containers/{container_id}.
func (s *Server) DeleteContainer(ctx context.Context, r contentserver.DeleteContainerRequestObject) (contentserver.DeleteContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteContainer(ctx, a, r.ContainerId); err != nil {
		return nil, err
	}
	return contentserver.DeleteContainer204Response{}, nil
}

// PublishContainer is POST /containers/{container_id}/publish.
func (s *Server) PublishContainer(ctx context.Context, r contentserver.PublishContainerRequestObject) (contentserver.PublishContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.SetPublished(ctx, a, r.ContainerId, true, ""); err != nil {
		return nil, err
	}
	return contentserver.PublishContainer204Response{}, nil
}

// UnpublishContainer is POST /containers/{container_id}/unpublish.
func (s *Server) UnpublishContainer(ctx context.Context, r contentserver.UnpublishContainerRequestObject) (contentserver.UnpublishContainerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	reason := ""
	if r.Body != nil && r.Body.Reason != nil {
		reason = *r.Body.Reason
	}
	if err := s.app.SetPublished(ctx, a, r.ContainerId, false, reason); err != nil {
		return nil, err
	}
	return contentserver.UnpublishContainer204Response{}, nil
}
