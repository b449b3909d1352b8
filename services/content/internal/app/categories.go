package app

import (
	"context"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListCategories lists every category.
func (a *App) ListCategories(ctx context.Context, _ domain.Actor) ([]domain.Category, error) {
	return a.store.ListCategories(ctx)
}

// CreateCategory creates a category under an existing parent, if any (admin).
func (a *App) CreateCategory(ctx context.Context, actor domain.Actor, c domain.Category) (domain.Category, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Category{}, err
	}
	if err := c.Validate(); err != nil {
		return domain.Category{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.Category{}, err
	}
	c.ID = id
	if err := a.store.InsertCategory(ctx, c); err != nil {
		return domain.Category{}, err
	}
	return c, nil
}

// ListTags lists every tag.
func (a *App) ListTags(ctx context.Context, _ domain.Actor) ([]domain.Tag, error) {
	return a.store.ListTags(ctx)
}
