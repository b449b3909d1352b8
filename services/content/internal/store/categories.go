package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ExistingCategoryIDs returns those of ids that are categories.
func (s *Store) ExistingCategoryIDs(ctx context.Context, ids []uuid.UUID) ([]uuid.UUID, error) {
	return s.q.ExistingCategoryIDs(ctx, ids)
}

// ExistingTagIDs returns those of ids that are tags.
func (s *Store) ExistingTagIDs(ctx context.Context, ids []uuid.UUID) ([]uuid.UUID, error) {
	return s.q.ExistingTagIDs(ctx, ids)
}

func categoryFrom(r contentdb.ListCategoriesRow) domain.Category {
	return domain.Category{ID: r.ID, Slug: r.Slug, Name: r.Name, Description: r.Description,
		ImageURL: r.ImageUrl, Icon: r.Icon, ParentID: r.ParentID, Sort: int(r.Sort)}
}

func tagFrom(r contentdb.ListTagsRow) domain.Tag {
	return domain.Tag{ID: r.ID, Slug: r.Slug, Name: r.Name, LatinName: r.LatinName, AppliesToMode: r.AppliesToMode}
}

// ListCategories lists every category by sort.
func (s *Store) ListCategories(ctx context.Context) ([]domain.Category, error) {
	rows, err := s.q.ListCategories(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Category, len(rows))
	for i, r := range rows {
		out[i] = categoryFrom(r)
	}
	return out, nil
}

// InsertCategory writes a new category.
func (s *Store) InsertCategory(ctx context.Context, c domain.Category) error {
	return translate(s.q.InsertCategory(ctx, contentdb.InsertCategoryParams{
		ID: c.ID, Slug: c.Slug, Name: c.Name, Description: c.Description, ImageUrl: c.ImageURL,
		Icon: c.Icon, ParentID: c.ParentID, Sort: i32(c.Sort),
	}), nil)
}

// ListTags lists every tag by name.
func (s *Store) ListTags(ctx context.Context) ([]domain.Tag, error) {
	rows, err := s.q.ListTags(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Tag, len(rows))
	for i, r := range rows {
		out[i] = tagFrom(r)
	}
	return out, nil
}
