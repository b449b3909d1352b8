package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func blogOut(b domain.Blog) content.Blog {
	return content.Blog{Id: b.ID, Slug: b.Slug, Kind: b.Kind, Title: b.Title, ShortDescription: b.ShortDescription,
		Content: b.Content, Image: b.Image, Cover: b.Cover, AuthorDisplayName: b.AuthorDisplayName,
		PublishDate: b.PublishDate.UTC(), ViewCount: b.ViewCount}
}

// ListBlogs is GET /blogs.
func (s *Server) ListBlogs(ctx context.Context, r contentserver.ListBlogsRequestObject) (contentserver.ListBlogsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	blogs, meta, err := s.app.ListBlogs(ctx, a, r.Params.Q, domain.NewPageRequest(r.Params.Page, r.Params.PageSize))
	if err != nil {
		return nil, err
	}
	return contentserver.ListBlogs200JSONResponse{Data: mapAll(blogs, blogOut), Meta: metaOut(meta)}, nil
}

// GetBlog is GET /blogs/{slug}.
func (s *Server) GetBlog(ctx context.Context, r contentserver.GetBlogRequestObject) (contentserver.GetBlogResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.app.GetBlog(ctx, a, r.Slug)
	if err != nil {
		return nil, err
	}
	return contentserver.GetBlog200JSONResponse(blogOut(b)), nil
}

// CreateComment is POST /comments.
func (s *Server) CreateComment(ctx context.Context, r contentserver.CreateCommentRequestObject) (contentserver.CreateCommentResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	if err := s.app.CreateComment(ctx, a, domain.Comment{Content: b.Content, Rate: b.Rate, BlogID: b.BlogId,
		ContainerID: b.ContainerId, ParentCommentID: b.ParentCommentId}); err != nil {
		return nil, err
	}
	return contentserver.CreateComment201Response{}, nil
}

// ListSlides is GET /slides.
func (s *Server) ListSlides(ctx context.Context, _ contentserver.ListSlidesRequestObject) (contentserver.ListSlidesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	slides, err := s.app.ListSlides(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListSlides200JSONResponse{Data: mapAll(slides, func(v domain.Slide) content.Slide {
		return content.Slide{Id: v.ID, Title: v.Title, Image: v.Image, Keyword: v.Keyword, SlideType: v.SlideType,
			Parameter: v.Parameter, Sort: v.Sort}
	})}, nil
}

// ListHomeEvents is GET /home-events.
func (s *Server) ListHomeEvents(ctx context.Context, _ contentserver.ListHomeEventsRequestObject) (contentserver.ListHomeEventsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	events, err := s.app.ListHomeEvents(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListHomeEvents200JSONResponse{Data: mapAll(events, func(v domain.HomeEvent) content.HomeEvent {
		return content.HomeEvent{Id: v.ID, Title: v.Title, Subtitle: v.Subtitle, Description: v.Description,
			ButtonText: v.ButtonText, ButtonUrl: v.ButtonURL, Badge: v.Badge, Image: v.Image, Color: v.Color,
			BackgroundColor: v.BackgroundColor, TextColor: v.TextColor, Sort: v.Sort}
	})}, nil
}
