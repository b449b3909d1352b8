package domain

import (
	"context"

	"github.com/google/uuid"
)

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
	// CountUpTo bounds the count behind the page's total (see MaxCountedTotal).
	CountUpTo int
}

// MaxCountedTotal is where the catalog search stops counting its matches: a total at or above
// it is reported as MaxCountedTotal. Counting every match would make each page cost as much as
// the whole result, however large the catalog; has_more still tells whether a page follows.
const MaxCountedTotal = 1000

// TemplatePage is a page of the catalog search: its cards, the number of matches counted up
// to the query's CountUpTo, and whether another card follows the page.
type TemplatePage struct {
	Cards []TemplateCard
	Total int
	More  bool
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

// TemplateStore reads the catalog.
type TemplateStore interface {
	ListTemplates(ctx context.Context, q TemplateQuery) (TemplatePage, error)
	ListRelatedTemplates(ctx context.Context, id uuid.UUID, includeUnpublished bool, limit int) ([]TemplateCard, error)
	ContainerLinks(ctx context.Context, id uuid.UUID) ([]Category, []Tag, error)
	ListContainerProjects(ctx context.Context, id uuid.UUID, includeUnpublished bool) ([]ProjectSummary, error)
}
