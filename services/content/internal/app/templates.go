package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListTemplates searches the catalog; admins also see unpublished templates. The total counts
// the matches up to SearchCountUpTo.
func (a *App) ListTemplates(ctx context.Context, actor domain.Actor, q domain.TemplateQuery) ([]domain.TemplateCard, domain.PageMeta, error) {
	q.IncludeUnpublished = actor.Admin
	q.TagIDs = domain.Distinct(q.TagIDs)
	if q.Sort == "" {
		q.Sort = domain.SortNewest
	}
	q.CountUpTo = a.cfg.SearchCountUpTo
	if q.CountUpTo <= 0 {
		q.CountUpTo = domain.MaxCountedTotal
	}
	page, err := a.store.ListTemplates(ctx, q)
	if err != nil {
		return nil, domain.PageMeta{}, err
	}
	return page.Cards, q.Page.MetaOf(page.Total, page.More), nil
}

// visibleContainer reads a container the actor may see.
func (a *App) visibleContainer(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Container, error) {
	c, err := a.store.GetContainer(ctx, id)
	if err != nil {
		return domain.Container{}, err
	}
	if !c.VisibleTo(actor) {
		return domain.Container{}, domain.ErrContainerNotFound
	}
	return c, nil
}

// GetTemplate reads a template by id or slug: a value that parses as a UUID is tried as an id
// first, then as a slug.
func (a *App) GetTemplate(ctx context.Context, actor domain.Actor, slugOrID string) (domain.TemplateDetail, error) {
	var (
		c   domain.Container
		err error = domain.ErrContainerNotFound
	)
	if id, perr := uuid.Parse(slugOrID); perr == nil {
		c, err = a.store.GetContainer(ctx, id)
	}
	if errs.KindOf(err) == errs.NotFound {
		c, err = a.store.GetContainerBySlug(ctx, slugOrID)
	}
	if err != nil {
		return domain.TemplateDetail{}, err
	}
	if !c.VisibleTo(actor) {
		return domain.TemplateDetail{}, domain.ErrContainerNotFound
	}
	d := domain.TemplateDetail{Container: c}
	if d.Projects, err = a.store.ListContainerProjects(ctx, c.ID, actor.Admin); err != nil {
		return domain.TemplateDetail{}, err
	}
	if d.Categories, d.Tags, err = a.store.ContainerLinks(ctx, c.ID); err != nil {
		return domain.TemplateDetail{}, err
	}
	return d, nil
}

// ListTemplateProjects lists the projects of a visible template.
func (a *App) ListTemplateProjects(ctx context.Context, actor domain.Actor, id uuid.UUID) ([]domain.ProjectSummary, error) {
	if _, err := a.visibleContainer(ctx, actor, id); err != nil {
		return nil, err
	}
	return a.store.ListContainerProjects(ctx, id, actor.Admin)
}

// ListRelatedTemplates ranks the templates sharing categories or tags with a visible template.
func (a *App) ListRelatedTemplates(ctx context.Context, actor domain.Actor, id uuid.UUID, limit *int) ([]domain.TemplateCard, error) {
	if _, err := a.visibleContainer(ctx, actor, id); err != nil {
		return nil, err
	}
	n := domain.DefaultRelatedLimit
	if limit != nil && *limit > 0 {
		n = min(*limit, domain.MaxPageSize)
	}
	return a.store.ListRelatedTemplates(ctx, id, actor.Admin, n)
}
