package store

import (
	"context"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ContainerLinks reads the categories and tags of a container.
func (s *Store) ContainerLinks(ctx context.Context, id uuid.UUID) ([]domain.Category, []domain.Tag, error) {
	cs, err := s.q.ListContainerCategories(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	ts, err := s.q.ListContainerTags(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	cats := make([]domain.Category, len(cs))
	for i, c := range cs {
		cats[i] = categoryFrom(contentdb.ListCategoriesRow(c))
	}
	tags := make([]domain.Tag, len(ts))
	for i, t := range ts {
		tags[i] = tagFrom(contentdb.ListTagsRow(t))
	}
	return cats, tags, nil
}

// ListContainerProjects lists a container's projects by name.
func (s *Store) ListContainerProjects(ctx context.Context, id uuid.UUID, includeUnpublished bool) ([]domain.ProjectSummary, error) {
	rows, err := s.q.ListContainerProjects(ctx, contentdb.ListContainerProjectsParams{ContainerID: id, IncludeUnpublished: includeUnpublished})
	if err != nil {
		return nil, err
	}
	out := make([]domain.ProjectSummary, len(rows))
	for i, r := range rows {
		out[i] = domain.ProjectSummary{ID: r.ID, Name: r.Name, Aspect: r.Aspect, Resolution: r.Resolution,
			ChooseMode: r.ChooseMode, Image: r.Image, OriginalWidth: int(r.OriginalWidth),
			OriginalHeight: int(r.OriginalHeight), ProjectDurationSec: r.ProjectDurationSec}
	}
	return out, nil
}

// templateOrders are the ORDER BY clauses of the catalog sorts (ties by id); the column names
// resolve both inside and outside the page subquery.
var templateOrders = map[domain.TemplateSort]string{
	domain.SortNewest:  "created_at DESC, id",
	domain.SortPopular: "use_count DESC, id",
	domain.SortRate:    "rate_avg DESC, rate_count DESC, id",
	domain.SortAZ:      "name, id",
}

// templateSearchSQL composes the catalog search for q: only the filters q carries appear, so
// each combination is its own statement with a plan for exactly those filters (a
// catch-all "($1 IS NULL OR ...)" statement would get one generic plan for all of them). One
// statement returns the page (and one card more, which tells whether a page follows) and the
// total counted up to q.CountUpTo: the page and the count are planned apart, each stopping at
// its own limit, and the aspects are read for the page's rows only. It is exported so that the
// benchmark runs the very same SQL through pgbench.
func templateSearchSQL(q domain.TemplateQuery, walk bool) (string, []any) {
	var (
		where strings.Builder
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	projectVisible := ""
	where.WriteString("c.deleted_at IS NULL")
	if !q.IncludeUnpublished {
		where.WriteString(" AND c.is_published")
		projectVisible = " AND p.is_published"
	}
	if q.Text != "" {
		where.WriteString("\n    AND c.search @@ websearch_to_tsquery('english', " + arg(q.Text) + ")")
	}
	if q.CategoryID != nil {
		where.WriteString("\n    AND c.category_ids @> ARRAY[" + arg(*q.CategoryID) + "::uuid]")
	}
	if len(q.TagIDs) > 0 {
		where.WriteString("\n    AND c.tag_ids @> " + arg(q.TagIDs) + "::uuid[]")
	}
	if q.Mode != "" {
		where.WriteString("\n    AND c.primary_mode = " + arg(q.Mode))
	}
	if q.Aspect != "" {
		where.WriteString("\n    AND EXISTS (SELECT 1 FROM projects p WHERE p.container_id = c.id AND p.aspect = " +
			arg(q.Aspect) + projectVisible + ")")
	}
	if q.IsPremium != nil {
		where.WriteString("\n    AND c.is_premium = " + arg(*q.IsPremium))
	}
	order, ok := templateOrders[q.Sort]
	if !ok {
		order = templateOrders[domain.SortNewest]
	}
	// One card more than the page tells whether another page follows.
	limit, offset := arg(int64(q.Page.Size+1)), arg(int64(q.Page.Offset()))
	upTo := arg(int64(max(q.CountUpTo, 1)))
	filter := where.String()
	total := "(SELECT count(*) FROM (SELECT 1 FROM containers c WHERE " + filter + "\n" +
		"                              LIMIT " + upTo + ") counted) AS total"
	if bucketed(q) {
		if walk {
			total = bucketWalk(filter, upTo) + " AS total"
		}
		total += ",\n       (SELECT last_value FROM containers_count_seq) AS catalog_added"
	}
	return `WITH page AS (
  SELECT c.id, c.slug, c.name, c.image, c.demo, c.mini_demo, c.is_premium, c.is_mockup,
         c.primary_mode, c.rate_avg, c.rate_count, c.use_count, c.created_at
  FROM containers c
  WHERE ` + filter + `
  ORDER BY ` + order + `
  LIMIT ` + limit + ` OFFSET ` + offset + `
)
SELECT id, slug, name, image, demo, mini_demo, is_premium, is_mockup, primary_mode, rate_avg,
       rate_count, use_count,
       ` + total + `,
       ARRAY(SELECT DISTINCT p.aspect FROM projects p
             WHERE p.container_id = page.id AND p.aspect <> ''` + projectVisible + `
             ORDER BY p.aspect) AS available_aspects
FROM page
ORDER BY ` + order, args
}

// The catalog search's total through the GIN index. Counting the matches of a search by text,
// tags or category through containers_visible_filter_idx builds a bitmap of every match in the
// catalog before the first is counted, so the count's cost grows with the catalog even though
// it stops at 1,000. Every template carries a counting bucket by the order templates were
// added (migration 00005: bucket k holds the 2^k x 16,384 templates after the first
// (2^k - 1) x 16,384), and the bucket is a key of the same index: a large catalog's total is
// counted bucket by bucket, from the oldest, until the bound is reached, which reads about as
// many templates as it takes to find the bound's matches however large the catalog is (at a
// million templates and 15,000 matches, 4.2 ms instead of 21.5). On a small catalog the one
// count is cheaper: the walk is planned on top of the page and the count (about 0.5 ms), and
// a catalog of a few buckets is read whole either way (at 100,000 templates the walk took 2.6
// ms against 1.5). Each such search also reads how many templates were ever added, and the
// store walks once that reaches the fifth bucket (245,760); either way the total is exact.
const (
	countBucketSize = 16384
	walkFromAdded   = 15 * countBucketSize // the first template of bucket 4
)

// countBucket is containers_count_bucket: the bucket of the template added seq-th (from 0).
func countBucket(seq int64) int {
	return bits.Len64(uint64(seq/countBucketSize+1)) - 1 //nolint:gosec // seq >= 0
}

// bucketed says whether q's total is counted through the GIN index that holds the buckets:
// a public search by text, tags or category.
func bucketed(q domain.TemplateQuery) bool {
	return !q.IncludeUnpublished && (q.Text != "" || len(q.TagIDs) > 0 || q.CategoryID != nil)
}

// bucketWalk counts the templates matching filter up to upTo, bucket by bucket: each step
// counts one bucket's matches, up to what the bound still lacks, and the walk ends at the
// bound or after the bucket of the last template added (the sequence is read in the
// statement, after its snapshot was taken, so it covers every template the snapshot sees).
func bucketWalk(filter, upTo string) string {
	return `(WITH RECURSIVE walk(bucket, counted) AS (
         SELECT 0::smallint, (SELECT count(*) FROM (SELECT 1 FROM containers c WHERE ` + filter + `
             AND c.count_bucket = 0::smallint LIMIT ` + upTo + `) b)
         UNION ALL
         SELECT (w.bucket + 1)::smallint, w.counted + (SELECT count(*) FROM (SELECT 1 FROM containers c WHERE ` + filter + `
             AND c.count_bucket = (w.bucket + 1)::smallint LIMIT ` + upTo + ` - w.counted) b)
         FROM walk w
         WHERE w.counted < ` + upTo + `
           AND w.bucket < (SELECT containers_count_bucket(last_value) FROM containers_count_seq))
       SELECT max(counted) FROM walk)`
}

// catalogSize is how many templates had been added to the catalog when a search last read it,
// shared by the store and the stores of its transactions.
type catalogSize struct{ added atomic.Int64 }

func (c *catalogSize) walk() bool { return c != nil && c.added.Load() >= walkFromAdded }

func (c *catalogSize) saw(added int64) {
	if c != nil {
		c.added.Store(added)
	}
}

// searchArgs puts before args the way pgx sends the search. A search by text, tags or category
// is planned for its own arguments at every execution (an unnamed statement, still one round
// trip): whether to read the few matches through the GIN index and sort them, or to walk the
// sort's index until the page is full, depends on how many templates those values match, and a
// prepared statement's generic plan, which PostgreSQL keeps from the sixth execution on, takes
// them to match a handful whatever they are. With it the page read and sorted every match,
// 14,912 of 1M templates for a page of 21, and PostgreSQL spent twice the CPU per search;
// planning each time costs 0.2-0.3 ms, which a cheaper execution repays even at 10k templates.
// Other filters (mode, premium, aspect) have a few values each, which the generic plan
// estimates well: those searches stay prepared, planned once.
func searchArgs(q domain.TemplateQuery, args []any) []any {
	if q.Text == "" && len(q.TagIDs) == 0 && q.CategoryID == nil {
		return args
	}
	return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
}

// ListTemplates runs the catalog search.
func (s *Store) ListTemplates(ctx context.Context, q domain.TemplateQuery) (domain.TemplatePage, error) {
	sql, args := templateSearchSQL(q, s.catalog.walk())
	raw, err := s.db.Query(ctx, sql, searchArgs(q, args)...)
	if err != nil {
		return domain.TemplatePage{}, err
	}
	// The cards' texts and aspects share a few buffers instead of ~10 allocations per card.
	rows := &arenaRows{Rows: raw, arena: &rowArena{}}
	defer rows.Close()
	page := domain.TemplatePage{Cards: make([]domain.TemplateCard, 0, q.Page.Size+1)}
	var (
		c         domain.TemplateCard
		rateCount int32
		total     int64
		added     int64
	)
	// One set of destinations for every row: each row is copied out of c.
	dest := []any{&c.ContainerID, &c.Slug, &c.Name, &c.Image, &c.Demo, &c.MiniDemo,
		&c.IsPremium, &c.IsMockup, &c.PrimaryMode, &c.RateAvg, &rateCount, &c.UseCount, &total}
	if bucketed(q) {
		dest = append(dest, &added)
	}
	dest = append(dest, &c.AvailableAspects)
	for rows.Next() {
		c = domain.TemplateCard{}
		if err := rows.Scan(dest...); err != nil {
			return domain.TemplatePage{}, err
		}
		c.RateCount = int(rateCount)
		page.Cards = append(page.Cards, c)
	}
	if err := rows.Err(); err != nil {
		return domain.TemplatePage{}, err
	}
	if len(page.Cards) > 0 && bucketed(q) {
		s.catalog.saw(added)
	}
	if len(page.Cards) > q.Page.Size {
		page.Cards, page.More = page.Cards[:q.Page.Size], true
	}
	// Past the bound of the count, the total is at least what the page has reached.
	page.Total = max(int(total), q.Page.Offset()+len(page.Cards))
	if len(page.Cards) == 0 && q.Page.Offset() > 0 {
		// A page past the end carries no row to read the total from: count on its own.
		count := q
		count.Page = domain.PageRequest{Number: 1, Size: 1}
		first, err := s.ListTemplates(ctx, count)
		if err != nil {
			return domain.TemplatePage{}, err
		}
		page.Total = first.Total
	}
	return page, nil
}

// ListRelatedTemplates ranks the templates sharing categories or tags with id.
func (s *Store) ListRelatedTemplates(ctx context.Context, id uuid.UUID, includeUnpublished bool, limit int) ([]domain.TemplateCard, error) {
	rows, err := s.q.ListRelatedTemplates(ctx, contentdb.ListRelatedTemplatesParams{
		ID: id, IncludeUnpublished: includeUnpublished, MaxRows: int32(limit), //nolint:gosec // limit <= 100
	})
	if err != nil {
		return nil, err
	}
	out := make([]domain.TemplateCard, len(rows))
	for i, r := range rows {
		out[i] = domain.TemplateCard{ContainerID: r.ID, Slug: r.Slug, Name: r.Name, Image: r.Image,
			Demo: r.Demo, MiniDemo: r.MiniDemo, IsPremium: r.IsPremium, IsMockup: r.IsMockup,
			PrimaryMode: r.PrimaryMode, RateAvg: r.RateAvg, RateCount: int(r.RateCount),
			UseCount: r.UseCount, AvailableAspects: r.AvailableAspects}
	}
	return out, nil
}
