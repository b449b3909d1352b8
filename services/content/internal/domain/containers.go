package domain

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Container is a catalog entry (template) holding one or more projects.
type Container struct {
	ID          uuid.UUID
	Slug        string
	Name        string
	Description string
	Keywords    string
	NewsText    string
	Image       string
	Demo        string
	FullDemo    string
	MiniDemo    string
	IsPublished bool
	IsPremium   bool
	IsMockup    bool
	PrimaryMode string
	RateAvg     float64
	RateCount   int
	UseCount    int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeletedAt   *time.Time
}

// VisibleTo reports whether a can read the container: nobody reads a deleted one, non-admins
// read published ones only.
func (c Container) VisibleTo(a Actor) bool {
	return c.DeletedAt == nil && (a.Admin || c.IsPublished)
}

// ErrContainerNotFound answers every read of an absent or invisible container.
var ErrContainerNotFound = errs.E(errs.NotFound, "template not found")

// ErrSlugTaken is the conflict of a container slug already in use (deleted containers keep theirs).
var ErrSlugTaken = errs.E(errs.Conflict, "the slug is already taken")

// ContainerFields are the writable fields of a container; nil means absent. Creation needs
// Slug, Name and PrimaryMode; a patch changes only what it carries. CategoryIDs / TagIDs, when
// present, replace the links.
type ContainerFields struct {
	Slug        *string
	Name        *string
	PrimaryMode *string
	Description *string
	IsPremium   *bool
	IsMockup    *bool
	CategoryIDs *[]uuid.UUID
	TagIDs      *[]uuid.UUID
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// NewContainer builds an unpublished container from the creation fields.
func NewContainer(id uuid.UUID, f ContainerFields, now time.Time) (Container, error) {
	var missing []errs.FieldError
	for name, v := range map[string]*string{"body.slug": f.Slug, "body.name": f.Name, "body.primary_mode": f.PrimaryMode} {
		if v == nil {
			missing = append(missing, errs.Field(name, "is required"))
		}
	}
	if len(missing) > 0 {
		return Container{}, errs.InvalidFields(missing...)
	}
	c := Container{ID: id, CreatedAt: now, UpdatedAt: now}
	if err := c.Apply(f, now); err != nil {
		return Container{}, err
	}
	return c, nil
}

// Apply changes the fields f carries and checks the result.
func (c *Container) Apply(f ContainerFields, now time.Time) error {
	set(&c.Slug, f.Slug)
	set(&c.Name, f.Name)
	set(&c.PrimaryMode, f.PrimaryMode)
	set(&c.Description, f.Description)
	set(&c.IsPremium, f.IsPremium)
	set(&c.IsMockup, f.IsMockup)
	c.UpdatedAt = now
	var bad []errs.FieldError
	if !slugPattern.MatchString(c.Slug) || len(c.Slug) > 200 {
		bad = append(bad, errs.Field("body.slug", "must be lowercase letters, digits and single hyphens (at most 200)"))
	}
	if strings.TrimSpace(c.Name) == "" {
		bad = append(bad, errs.Field("body.name", "must not be empty"))
	}
	if strings.TrimSpace(c.PrimaryMode) == "" {
		bad = append(bad, errs.Field("body.primary_mode", "must not be empty"))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// UnknownIDs names, as body.<field>[i], every id of ids that is not in known.
func UnknownIDs(field string, ids []uuid.UUID, known []uuid.UUID) []errs.FieldError {
	set := make(map[uuid.UUID]struct{}, len(known))
	for _, id := range known {
		set[id] = struct{}{}
	}
	var out []errs.FieldError
	for i, id := range ids {
		if _, ok := set[id]; !ok {
			out = append(out, errs.Field(fmt.Sprintf("body.%s[%d]", field, i), "no such id: "+id.String()))
		}
	}
	return out
}

// Distinct returns ids without repeats, in first-seen order.
func Distinct(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]struct{}, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out
}

// ContainerStore keeps containers, their links and their publication log.
type ContainerStore interface {
	GetContainer(ctx context.Context, id uuid.UUID) (Container, error)
	GetContainerForUpdate(ctx context.Context, id uuid.UUID) (Container, error)
	GetContainerBySlug(ctx context.Context, slug string) (Container, error)
	InsertContainer(ctx context.Context, c Container) error
	UpdateContainer(ctx context.Context, c Container) error
	// SetContainerLinks replaces the category links (when categories is not nil) and the tag
	// links (when tags is not nil).
	SetContainerLinks(ctx context.Context, id uuid.UUID, categories, tags *[]uuid.UUID) error
	SetContainerPublished(ctx context.Context, id uuid.UUID, published bool, reason, actor string, at time.Time) error
	SoftDeleteContainer(ctx context.Context, id uuid.UUID, at time.Time) error
}
