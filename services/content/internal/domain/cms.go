package domain

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// ErrBlogNotFound answers a read of an absent or not yet published blog.
var ErrBlogNotFound = errs.E(errs.NotFound, "blog not found")

// Blog is a CMS article.
type Blog struct {
	ID                uuid.UUID
	Slug              string
	Kind              string
	Title             string
	ShortDescription  string
	Content           string
	Image             string
	Cover             string
	AuthorDisplayName string
	PublishDate       time.Time
	ViewCount         int64
}

// VisibleTo reports whether a can read the blog at now: non-admins read published ones only.
func (b Blog) VisibleTo(a Actor, now time.Time) bool { return a.Admin || !b.PublishDate.After(now) }

// BlogQuery filters the blog list.
type BlogQuery struct {
	Text               *string
	Page               PageRequest
	Now                time.Time
	IncludeUnpublished bool
}

// Slide is a slide of the home page carousel.
type Slide struct {
	ID        uuid.UUID
	Title     string
	Image     string
	Keyword   string
	SlideType string
	Parameter string
	Sort      int
}

// HomeEvent is a promotional block of the home page.
type HomeEvent struct {
	ID              uuid.UUID
	Title           string
	Subtitle        string
	Description     string
	ButtonText      string
	ButtonURL       string
	Badge           string
	Image           string
	Color           string
	BackgroundColor string
	TextColor       string
	Sort            int
}

// CommentPending is the status of a new comment: it waits for moderation (outside this API),
// which approves or rejects it.
const CommentPending = "pending"

// Comment is a user's comment on a blog or a template.
type Comment struct {
	ID              uuid.UUID
	UserID          uuid.UUID
	TenantID        *uuid.UUID
	Content         string
	Rate            *float64
	BlogID          *uuid.UUID
	ContainerID     *uuid.UUID
	ParentCommentID *uuid.UUID
	Status          string
	CreatedAt       time.Time
}

// CommentTarget is what a comment is about.
type CommentTarget struct {
	BlogID      *uuid.UUID
	ContainerID *uuid.UUID
}

// Validate checks the comment's own fields: content, rate from 0 to 5, exactly one target.
func (c Comment) Validate() error {
	var bad []errs.FieldError
	if strings.TrimSpace(c.Content) == "" {
		bad = append(bad, errs.Field("body.content", "must not be empty"))
	}
	if c.Rate != nil && (*c.Rate < 0 || *c.Rate > 5) {
		bad = append(bad, errs.Field("body.rate", "must be from 0 to 5"))
	}
	if (c.BlogID == nil) == (c.ContainerID == nil) {
		bad = append(bad, errs.Field("body", "exactly one of blog_id and container_id is needed"))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// SameTarget reports whether t is the target of c.
func (c Comment) SameTarget(t CommentTarget) bool {
	eq := func(a, b *uuid.UUID) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
	return eq(c.BlogID, t.BlogID) && eq(c.ContainerID, t.ContainerID)
}

// CMSStore keeps blogs, comments, slides and home events.
type CMSStore interface {
	ListBlogs(ctx context.Context, q BlogQuery) ([]Blog, int, error)
	GetBlogBySlug(ctx context.Context, slug string) (Blog, error)
	BlogExists(ctx context.Context, id uuid.UUID) (bool, error)
	GetCommentTarget(ctx context.Context, id uuid.UUID) (CommentTarget, error)
	InsertComment(ctx context.Context, c Comment) error
	ListSlides(ctx context.Context) ([]Slide, error)
	ListHomeEvents(ctx context.Context) ([]HomeEvent, error)
}
