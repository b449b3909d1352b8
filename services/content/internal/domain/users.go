package domain

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// FavoriteFolder is a folder of a user's favorite templates.
type FavoriteFolder struct {
	ID          uuid.UUID
	UserID      uuid.UUID
	Name        string
	Description string
	ItemCount   int
	CreatedAt   time.Time
}

// ErrFolderNameTaken is the conflict of a folder name the user already has.
var ErrFolderNameTaken = errs.E(errs.Conflict, "you already have a folder with this name")

// NewFavoriteFolder builds an empty folder of user.
func NewFavoriteFolder(id, user uuid.UUID, name string, description *string, now time.Time) (FavoriteFolder, error) {
	if strings.TrimSpace(name) == "" {
		return FavoriteFolder{}, errs.InvalidFields(errs.Field("body.name", "must not be empty"))
	}
	f := FavoriteFolder{ID: id, UserID: user, Name: name, CreatedAt: now}
	set(&f.Description, description)
	return f, nil
}

// Favorite puts a template among a user's favorites, optionally in a folder with a note.
type Favorite struct {
	UserID      uuid.UUID
	ContainerID uuid.UUID
	FolderID    *uuid.UUID
	Note        *string
	CreatedAt   time.Time
}

// Comment statuses: a new comment waits for moderation (outside this API).
const (
	CommentPending  = "pending"
	CommentApproved = "approved"
	CommentRejected = "rejected"
)

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
