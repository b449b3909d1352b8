package domain

import (
	"encoding/json"
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

// PlatformTenant holds the platform's default website settings; a tenant's own key wins.
var PlatformTenant = uuid.Nil

// Settings are website settings by key (values are any JSON).
type Settings map[string]json.RawMessage
