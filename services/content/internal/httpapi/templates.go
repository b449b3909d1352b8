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
