package domain

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Category is a catalog category; ParentID gives the tree.
type Category struct {
	ID          uuid.UUID
	Slug        string
	Name        string
	Description string
	ImageURL    string
	Icon        string
	ParentID    *uuid.UUID
	Sort        int
}

// Validate checks a new category's own fields (the parent is checked against the store).
func (c Category) Validate() error {
	var bad []errs.FieldError
	if strings.TrimSpace(c.Slug) == "" {
		bad = append(bad, errs.Field("body.slug", "is required"))
	}
	if strings.TrimSpace(c.Name) == "" {
		bad = append(bad, errs.Field("body.name", "is required"))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// ErrCategorySlugTaken is the conflict of a category slug already in use.
var ErrCategorySlugTaken = errs.E(errs.Conflict, "the category slug is already taken")

// Tag labels templates.
type Tag struct {
	ID            uuid.UUID
	Slug          string
	Name          string
	LatinName     string
	AppliesToMode string
}

// CategoryStore keeps categories and tags.
type CategoryStore interface {
	ListCategories(ctx context.Context) ([]Category, error)
	InsertCategory(ctx context.Context, c Category) error
	ListTags(ctx context.Context) ([]Tag, error)
	ExistingCategoryIDs(ctx context.Context, ids []uuid.UUID) ([]uuid.UUID, error)
	ExistingTagIDs(ctx context.Context, ids []uuid.UUID) ([]uuid.UUID, error)
}
