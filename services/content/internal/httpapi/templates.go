package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func cardOut(c domain.TemplateCard) content.TemplateCard {
	aspects := c.AvailableAspects
	if aspects == nil {
		aspects = []string{}
	}
	return content.TemplateCard{ContainerId: c.ContainerID, Slug: c.Slug, Name: c.Name, Image: c.Image,
		Demo: c.Demo, MiniDemo: c.MiniDemo, IsPremium: c.IsPremium, IsMockup: c.IsMockup,
		PrimaryMode: c.PrimaryMode, RateAvg: c.RateAvg, RateCount: c.RateCount, UseCount: c.UseCount,
		AvailableAspects: aspects}
}

func containerOut(c domain.Container) content.Container {
	return content.Container{Id: c.ID, Slug: c.Slug, Name: c.Name, Description: c.Description,
		Keywords: c.Keywords, NewsText: c.NewsText, Image: c.Image, Demo: c.Demo, FullDemo: c.FullDemo,
		MiniDemo: c.MiniDemo, IsPublished: c.IsPublished, IsPremium: c.IsPremium, IsMockup: c.IsMockup,
		PrimaryMode: c.PrimaryMode, RateAvg: c.RateAvg, RateCount: c.RateCount, UseCount: c.UseCount}
}

func categoryOut(c domain.Category) content.Category {
	return content.Category{Id: ptr(c.ID), Slug: ptr(c.Slug), Name: ptr(c.Name), Description: ptr(c.Description),
		ImageUrl: ptr(c.ImageURL), Icon: ptr(c.Icon), ParentId: c.ParentID, Sort: ptr(c.Sort)}
}

func tagOut(t domain.Tag) content.Tag {
	return content.Tag{Id: t.ID, Slug: t.Slug, Name: t.Name, LatinName: t.LatinName, AppliesToMode: t.AppliesToMode}
}

// ListTemplates is GET /templates.
func (s *Server) ListTemplates(ctx context.Context, r contentserver.ListTemplatesRequestObject) (contentserver.ListTemplatesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := r.Params
	q := domain.TemplateQuery{CategoryID: p.CategoryId, IsPremium: p.IsPremium,
		Page: domain.NewPageRequest(p.Page, p.PageSize)}
	if p.Q != nil {
		q.Text = *p.Q
	}
	if p.TagIds != nil {
		q.TagIDs = *p.TagIds
	}
	if p.Mode != nil {
		q.Mode = *p.Mode
	}
	if p.Aspect != nil {
		q.Aspect = string(*p.Aspect)
	}
	if p.Sort != nil {
		q.Sort = domain.TemplateSort(*p.Sort)
	}
	cards, meta, err := s.app.ListTemplates(ctx, a, q)
	if err != nil {
		return nil, err
	}
	return templatePageJSON{cards: cards, meta: meta}, nil
}

// GetTemplate is GET /templates/{slug_or_id}.
func (s *Server) GetTemplate(ctx context.Context, r contentserver.GetTemplateRequestObject) (contentserver.GetTemplateResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.app.GetTemplate(ctx, a, r.SlugOrId)
	if err != nil {
		return nil, err
	}
	return contentserver.GetTemplate200JSONResponse{Container: containerOut(d.Container),
		Projects: mapAll(d.Projects, projectSummaryOut), Categories: mapAll(d.Categories, categoryOut),
		Tags: mapAll(d.Tags, tagOut)}, nil
}

// ListTemplateProjects is GET /templates/{container_id}/projects.
func (s *Server) ListTemplateProjects(ctx context.Context, r contentserver.ListTemplateProjectsRequestObject) (contentserver.ListTemplateProjectsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := s.app.ListTemplateProjects(ctx, a, r.ContainerId)
	if err != nil {
		return nil, err
	}
	return contentserver.ListTemplateProjects200JSONResponse{Data: mapAll(ps, projectSummaryOut)}, nil
}

// ListRelatedTemplates is GET /templates/{container_id}/related.
func (s *Server) ListRelatedTemplates(ctx context.Context, r contentserver.ListRelatedTemplatesRequestObject) (contentserver.ListRelatedTemplatesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	cards, err := s.app.ListRelatedTemplates(ctx, a, r.ContainerId, r.Params.Limit)
	if err != nil {
		return nil, err
	}
	return contentserver.ListRelatedTemplates200JSONResponse{Data: mapAll(cards, cardOut)}, nil
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
