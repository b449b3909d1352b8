package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListCategories is GET /categories.
func (s *Server) ListCategories(ctx context.Context, _ contentserver.ListCategoriesRequestObject) (contentserver.ListCategoriesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := s.app.ListCategories(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListCategories200JSONResponse{Data: mapAll(cs, categoryOut)}, nil
}

// CreateCategory is POST /categories.
func (s *Server) CreateCategory(ctx context.Context, r contentserver.CreateCategoryRequestObject) (contentserver.CreateCategoryResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	c, err := s.app.CreateCategory(ctx, a, domain.Category{Slug: value(b.Slug), Name: value(b.Name),
		Description: value(b.Description), ImageURL: value(b.ImageUrl), Icon: value(b.Icon),
		ParentID: b.ParentId, Sort: value(b.Sort)})
	if err != nil {
		return nil, err
	}
	return contentserver.CreateCategory201JSONResponse(categoryOut(c)), nil
}

// ListTags is GET /tags.
func (s *Server) ListTags(ctx context.Context, _ contentserver.ListTagsRequestObject) (contentserver.ListTagsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := s.app.ListTags(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListTags200JSONResponse{Data: mapAll(ts, tagOut)}, nil
}

func categoryOut(c domain.Category) content.Category {
	return content.Category{Id: ptr(c.ID), Slug: ptr(c.Slug), Name: ptr(c.Name), Description: ptr(c.Description),
		ImageUrl: ptr(c.ImageURL), Icon: ptr(c.Icon), ParentId: c.ParentID, Sort: ptr(c.Sort)}
}

func tagOut(t domain.Tag) content.Tag {
	return content.Tag{Id: t.ID, Slug: t.Slug, Name: t.Name, LatinName: t.LatinName, AppliesToMode: t.AppliesToMode}
}
