package app

import (
	"context"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListBlogs searches the blogs; non-admins see those whose publish date has passed.
func (a *App) ListBlogs(ctx context.Context, actor domain.Actor, text *string, page domain.PageRequest) ([]domain.Blog, domain.PageMeta, error) {
	q := domain.BlogQuery{Text: text, Page: page, Now: a.now(), IncludeUnpublished: actor.Admin}
	blogs, total, err := a.store.ListBlogs(ctx, q)
	if err != nil {
		return nil, domain.PageMeta{}, err
	}
	return blogs, page.Meta(total), nil
}

// GetBlog reads a published blog (any blog for admins) by slug.
func (a *App) GetBlog(ctx context.Context, actor domain.Actor, slug string) (domain.Blog, error) {
	b, err := a.store.GetBlogBySlug(ctx, slug)
	if err != nil {
		return domain.Blog{}, err
	}
	if !b.VisibleTo(actor, a.now()) {
		return domain.Blog{}, domain.ErrBlogNotFound
	}
	return b, nil
}

// ListSlides lists the home page slides.
func (a *App) ListSlides(ctx context.Context, _ domain.Actor) ([]domain.Slide, error) {
	return a.store.ListSlides(ctx)
}

// ListHomeEvents lists the home page events.
func (a *App) ListHomeEvents(ctx context.Context, _ domain.Actor) ([]domain.HomeEvent, error) {
	return a.store.ListHomeEvents(ctx)
}

// Settings returns the public website settings of the caller's tenant over the platform
// defaults; a caller without a tenant gets the defaults.
func (a *App) Settings(ctx context.Context, actor domain.Actor) (domain.Settings, error) {
	return a.store.PublicSettings(ctx, actor.TenantID)
}
