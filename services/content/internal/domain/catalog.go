package domain

import (
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

// TemplateSort orders the catalog.
type TemplateSort string

// The catalog sorts; ties are broken by id.
const (
	SortNewest  TemplateSort = "newest"  // created desc
	SortPopular TemplateSort = "popular" // use_count desc
	SortRate    TemplateSort = "rate"    // rate_avg desc, then rate_count desc
	SortAZ      TemplateSort = "az"      // name asc
)

// TemplateQuery filters and orders GET /templates. Zero values mean "no filter".
type TemplateQuery struct {
	Text       string
	CategoryID *uuid.UUID
	TagIDs     []uuid.UUID // templates having ALL of them
	Mode       string
	Aspect     string
	IsPremium  *bool
	Sort       TemplateSort
	Page       PageRequest
	// IncludeUnpublished is set for admins.
	IncludeUnpublished bool
}

// TemplateCard is a container as shown in catalog lists.
type TemplateCard struct {
	ContainerID      uuid.UUID
	Slug             string
	Name             string
	Image            string
	Demo             string
	MiniDemo         string
	IsPremium        bool
	IsMockup         bool
	PrimaryMode      string
	RateAvg          float64
	RateCount        int
	UseCount         int64
	AvailableAspects []string
}

// TemplateDetail is a container with its projects, categories and tags.
type TemplateDetail struct {
	Container  Container
	Projects   []ProjectSummary
	Categories []Category
	Tags       []Tag
}

// DefaultRelatedLimit is the number of related templates when the caller gives no limit.
const DefaultRelatedLimit = 8

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

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
