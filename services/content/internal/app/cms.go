package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
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

// CreateComment records the caller's comment on a blog or a visible template, pending approval.
// A reply must be about the same blog or template as its parent.
func (a *App) CreateComment(ctx context.Context, actor domain.Actor, c domain.Comment) error {
	user, err := actor.RequireUser()
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if c.BlogID != nil {
		ok, err := a.store.BlogExists(ctx, *c.BlogID)
		if err != nil {
			return err
		}
		if !ok {
			return errs.InvalidFields(errs.Field("body.blog_id", "is not an existing blog"))
		}
	}
	if c.ContainerID != nil {
		if _, err := a.visibleContainer(ctx, actor, *c.ContainerID); err != nil {
			return errNotFoundAs(err, "body.container_id", "is not an existing template")
		}
	}
	if c.ParentCommentID != nil {
		t, err := a.store.GetCommentTarget(ctx, *c.ParentCommentID)
		if err != nil {
			return errNotFoundAs(err, "body.parent_comment_id", "is not an existing comment")
		}
		if !c.SameTarget(t) {
			return errs.InvalidFields(errs.Field("body.parent_comment_id", "is a comment about another blog or template"))
		}
	}
	id, err := newID()
	if err != nil {
		return err
	}
	c.ID, c.UserID, c.Status, c.CreatedAt = id, user, domain.CommentPending, a.now()
	if actor.TenantID != uuid.Nil {
		t := actor.TenantID
		c.TenantID = &t
	}
	return a.store.InsertComment(ctx, c)
}
