package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func blogFrom(r contentdb.GetBlogBySlugRow) domain.Blog {
	return domain.Blog{ID: r.ID, Slug: r.Slug, Kind: r.Kind, Title: r.Title, ShortDescription: r.ShortDescription,
		Content: r.Content, Image: r.Image, Cover: r.Cover, AuthorDisplayName: r.AuthorDisplayName,
		PublishDate: r.PublishDate, ViewCount: r.ViewCount}
}

// ListBlogs searches the blogs, newest first.
func (s *Store) ListBlogs(ctx context.Context, q domain.BlogQuery) ([]domain.Blog, int, error) {
	rows, err := s.q.ListBlogs(ctx, contentdb.ListBlogsParams{
		Q: q.Text, Now: q.Now, IncludeUnpublished: q.IncludeUnpublished,
		SkipRows: i32(q.Page.Offset()), MaxRows: i32(q.Page.Size),
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]domain.Blog, len(rows))
	total := 0
	for i, r := range rows {
		out[i] = blogFrom(contentdb.GetBlogBySlugRow{ID: r.ID, Slug: r.Slug, Kind: r.Kind, Title: r.Title,
			ShortDescription: r.ShortDescription, Content: r.Content, Image: r.Image, Cover: r.Cover,
			AuthorDisplayName: r.AuthorDisplayName, PublishDate: r.PublishDate, ViewCount: r.ViewCount})
		total = int(r.Total)
	}
	if len(rows) == 0 && q.Page.Offset() > 0 {
		count := q
		count.Page = domain.PageRequest{Number: 1, Size: 1}
		_, n, err := s.ListBlogs(ctx, count)
		return out, n, err
	}
	return out, total, nil
}

// GetBlogBySlug reads a blog whatever its publish date.
func (s *Store) GetBlogBySlug(ctx context.Context, slug string) (domain.Blog, error) {
	r, err := s.q.GetBlogBySlug(ctx, slug)
	if err != nil {
		return domain.Blog{}, translate(err, domain.ErrBlogNotFound)
	}
	return blogFrom(r), nil
}

// ListSlides lists the slides by sort.
func (s *Store) ListSlides(ctx context.Context) ([]domain.Slide, error) {
	rows, err := s.q.ListSlides(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Slide, len(rows))
	for i, r := range rows {
		out[i] = domain.Slide{ID: r.ID, Title: r.Title, Image: r.Image, Keyword: r.Keyword,
			SlideType: r.SlideType, Parameter: r.Parameter, Sort: int(r.Sort)}
	}
	return out, nil
}

// ListHomeEvents lists the home events by sort.
func (s *Store) ListHomeEvents(ctx context.Context) ([]domain.HomeEvent, error) {
	rows, err := s.q.ListHomeEvents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.HomeEvent, len(rows))
	for i, r := range rows {
		out[i] = domain.HomeEvent{ID: r.ID, Title: r.Title, Subtitle: r.Subtitle, Description: r.Description,
			ButtonText: r.ButtonText, ButtonURL: r.ButtonUrl, Badge: r.Badge, Image: r.Image, Color: r.Color,
			BackgroundColor: r.BackgroundColor, TextColor: r.TextColor, Sort: int(r.Sort)}
	}
	return out, nil
}

// BlogExists reports whether id is a blog.
func (s *Store) BlogExists(ctx context.Context, id uuid.UUID) (bool, error) {
	return s.q.BlogExists(ctx, id)
}

// GetCommentTarget reads what a comment is about.
func (s *Store) GetCommentTarget(ctx context.Context, id uuid.UUID) (domain.CommentTarget, error) {
	r, err := s.q.GetCommentTarget(ctx, id)
	if err != nil {
		return domain.CommentTarget{}, translate(err, errs.E(errs.NotFound, "comment not found"))
	}
	return domain.CommentTarget{BlogID: r.BlogID, ContainerID: r.ContainerID}, nil
}

// InsertComment writes a new comment.
func (s *Store) InsertComment(ctx context.Context, c domain.Comment) error {
	return translate(s.q.InsertComment(ctx, contentdb.InsertCommentParams{
		ID: c.ID, UserID: c.UserID, TenantID: c.TenantID, Content: c.Content, Rate: c.Rate,
		BlogID: c.BlogID, ContainerID: c.ContainerID, ParentCommentID: c.ParentCommentID,
		Status: c.Status, CreatedAt: c.CreatedAt,
	}), nil)
}
