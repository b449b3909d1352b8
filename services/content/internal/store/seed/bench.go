package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchCatalog names what the benchmark loads from the synthetic catalog.
type BenchCatalog struct {
	Templates int       `json:"templates"`
	Projects  int       `json:"projects"`
	ProjectID uuid.UUID `json:"project_id"` // the 40 scenes x 25 elements project
	TagID     uuid.UUID `json:"tag_id"`     // a tag on about a quarter of the templates
	Query     string    `json:"q"`          // a word in the names of about 1/16 of the templates
}

// BigProject is the shape of the benchmark's large project: 40 scenes of 20 content and 5
// colour elements, with presets, characters, repeaters, shared layers and stories.
var BigProject = ProjectShape{Scenes: 40, ContentsPerScene: 20, ColorsPerScene: 5, Extras: true}

var (
	adjectives = []string{"Elegant", "Modern", "Minimal", "Dynamic", "Vintage", "Bold", "Cinematic", "Playful",
		"Corporate", "Neon", "Retro", "Clean", "Epic", "Soft", "Urban"}
	subjects = []string{"Wedding", "Travel", "Business", "Fitness", "Food", "Fashion", "Music", "Gaming",
		"Property", "Education", "Holiday", "Birthday", "Tech", "Nature", "Sports", "Podcast"}
	formats = []string{"Slideshow", "Intro", "Promo", "Logo Reveal", "Opener", "Invitation", "Story", "Titles",
		"Lower Thirds", "Teaser"}
	modes = []string{"video", "video", "video", "photo", "mockup"}
)

// Bench writes a synthetic catalog of n templates with 3 projects each, 40 tags, 12 categories
// and one project of 40 scenes x 25 elements, with COPY in one transaction. The database is
// expected to hold no catalog yet.
func Bench(ctx context.Context, pool *pgxpool.Pool, n int) (BenchCatalog, error) {
	rng := rand.New(rand.NewPCG(20260101, uint64(n))) //nolint:gosec // synthetic data
	g := ids{rng}
	out := BenchCatalog{Templates: n + 1, Projects: 3*n + 1, Query: "wedding"}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		now := time.Now().UTC()
		var cats, tags, containers, projects, ccats, ctags [][]any
		catIDs := make([]uuid.UUID, 12)
		for i := range catIDs {
			catIDs[i] = g.next()
			cats = append(cats, []any{catIDs[i], fmt.Sprintf("category-%02d", i+1), fmt.Sprintf("Category %d", i+1), i + 1})
		}
		tagIDs := make([]uuid.UUID, 40)
		for i := range tagIDs {
			tagIDs[i] = g.next()
			tags = append(tags, []any{tagIDs[i], fmt.Sprintf("tag-%02d", i+1), fmt.Sprintf("Tag %d", i+1)})
		}
		out.TagID = tagIDs[0]
		aspectSets := [][]string{{"16:9", "9:16", "1:1"}, {"16:9", "9:16", "4:5"}, {"16:9", "1:1", "4:5"}}
		addContainer := func(name string, published bool) uuid.UUID {
			id := g.next()
			slug := strings.ToLower(strings.ReplaceAll(name, " ", "-")) + "-" + id.String()[24:]
			// Tag 1 on a quarter of the templates; three more random tags each.
			linked := map[uuid.UUID]bool{}
			if rng.IntN(4) == 0 {
				linked[tagIDs[0]] = true
			}
			for len(linked) < 4 {
				linked[tagIDs[1+rng.IntN(len(tagIDs)-1)]] = true
			}
			tagList := make([]uuid.UUID, 0, len(linked))
			for t := range linked {
				tagList = append(tagList, t)
				ctags = append(ctags, []any{id, t})
			}
			catList := []uuid.UUID{catIDs[rng.IntN(len(catIDs))]}
			if other := catIDs[rng.IntN(len(catIDs))]; other != catList[0] && rng.IntN(2) == 0 {
				catList = append(catList, other)
			}
			for _, c := range catList {
				ccats = append(ccats, []any{id, c})
			}
			created := now.Add(-time.Duration(rng.IntN(730*24)) * time.Hour)
			containers = append(containers, []any{id, slug, name,
				"A " + strings.ToLower(name) + " template with editable text, colours and music.",
				strings.ToLower(strings.ReplaceAll(name, " ", ", ")), "", "https://cdn.videotpl.dev/t/" + id.String() + ".jpg",
				"https://cdn.videotpl.dev/t/" + id.String() + ".mp4", "", "", published, rng.IntN(3) == 0, rng.IntN(10) == 0,
				modes[rng.IntN(len(modes))], 3 + 2*rng.Float64(), rng.IntN(2000), int64(rng.IntN(100000)),
				catList, tagList, created, created})
			return id
		}
		for i := 0; i < n; i++ {
			name := adjectives[rng.IntN(len(adjectives))] + " " + subjects[i%len(subjects)] + " " + formats[rng.IntN(len(formats))]
			cid := addContainer(name, rng.IntN(20) != 0)
			for k, aspect := range aspectSets[rng.IntN(len(aspectSets))] {
				w, h := dims(aspect)
				projects = append(projects, []any{g.next(), cid, fmt.Sprintf("%s %s", name, aspect), aspect,
					fmt.Sprintf("%dx%d", w, h), "free", "", w, h, 15 + float64(5*k), true, now})
			}
		}
		big := addContainer("Bench Showcase Story", true)
		out.ProjectID = g.next()
		projects = append(projects, []any{out.ProjectID, big, "Bench 40 x 25", "16:9", "1920x1080", "free", "", 1920, 1080, 120.0, true, now})
		err := withIndexesBuiltAfter(ctx, tx, catalogTables, func() error {
			return copyAll(ctx, tx, []copyTable{
				{"categories", []string{"id", "slug", "name", "sort"}, cats},
				{"tags", []string{"id", "slug", "name"}, tags},
				{"containers", []string{"id", "slug", "name", "description", "keywords", "news_text", "image", "demo", "full_demo",
					"mini_demo", "is_published", "is_premium", "is_mockup", "primary_mode", "rate_avg", "rate_count", "use_count",
					"category_ids", "tag_ids", "created_at", "updated_at"}, containers},
				{"container_categories", []string{"container_id", "category_id"}, ccats},
				{"container_tags", []string{"container_id", "tag_id"}, ctags},
				{"projects", []string{"id", "container_id", "name", "aspect", "resolution", "choose_mode", "image", "original_width",
					"original_height", "project_duration_sec", "is_published", "created_at"}, projects},
			})
		})
		if err != nil {
			return err
		}
		fonts, err := insertFonts(ctx, tx, g)
		if err != nil {
			return err
		}
		return InsertProjectContent(ctx, tx, rng, out.ProjectID, BigProject, fonts)
	})
	if err != nil {
		return BenchCatalog{}, err
	}
	// Fresh statistics and visibility maps, as a catalog that has been live for a while has.
	_, err = pool.Exec(ctx, "VACUUM ANALYZE")
	return out, err
}

// catalogTables are the tables whose rows grow with the size of the synthetic catalog.
var catalogTables = []string{"containers", "container_categories", "container_tags", "projects"}

// withIndexesBuiltAfter runs load with the secondary indexes and the foreign keys of tables
// dropped, then builds each index in one sorted pass and checks each foreign key in one join,
// in tx. Row by row, every COPYed row updated the GIN indexes (they keep no pending list) and
// five btree indexes in place and ran a referential check per key: a catalog of a million
// templates (and four million tag links) took minutes to seed instead of what COPY allows.
// Indexes that back a key or a unique constraint stay.
func withIndexesBuiltAfter(ctx context.Context, tx pgx.Tx, tables []string, load func() error) error {
	type definition struct{ drop, create string }
	rows, err := tx.Query(ctx, `SELECT 'DROP INDEX ' || i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i
WHERE i.indrelid = ANY($1::text[]::regclass[])
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
UNION ALL
SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', c.conrelid::regclass, c.conname),
       format('ALTER TABLE %s ADD CONSTRAINT %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
FROM pg_constraint c
WHERE c.contype = 'f' AND c.conrelid = ANY($1::text[]::regclass[])`, tables)
	if err != nil {
		return err
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (definition, error) {
		var d definition
		return d, r.Scan(&d.drop, &d.create)
	})
	if err != nil {
		return err
	}
	for _, d := range defs {
		if _, err := tx.Exec(ctx, d.drop); err != nil {
			return err
		}
	}
	if err := load(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
		return err
	}
	for _, d := range defs {
		if _, err := tx.Exec(ctx, d.create); err != nil {
			return fmt.Errorf("%s: %w", d.create, err)
		}
	}
	return nil
}

func dims(aspect string) (int, int) {
	switch aspect {
	case "9:16":
		return 1080, 1920
	case "1:1":
		return 1080, 1080
	case "4:5":
		return 1080, 1350
	}
	return 1920, 1080
}

// insertFonts writes a small font library and returns its ids.
func insertFonts(ctx context.Context, db DB, g ids) ([]uuid.UUID, error) {
	fonts := []struct{ name, family, style, dir string }{
		{"Montserrat Bold", "Montserrat", "normal", "ltr"}, {"Open Sans", "Open Sans", "normal", "ltr"},
		{"Playfair Display Italic", "Playfair Display", "italic", "ltr"}, {"Vazirmatn", "Vazirmatn", "normal", "rtl"},
	}
	var rows [][]any
	out := make([]uuid.UUID, len(fonts))
	for i, f := range fonts {
		out[i] = g.next()
		sys := strings.ReplaceAll(f.name, " ", "-")
		rows = append(rows, []any{out[i], f.name, f.name, sys, f.family, f.style, f.dir, []int{700, 400, 400, 400}[i],
			"fonts/" + sys + ".ttf", "https://cdn.videotpl.dev/fonts/" + sys + ".ttf",
			"https://cdn.videotpl.dev/fonts/" + sys + ".png", i == 2, true})
	}
	return out, copyAll(ctx, db, []copyTable{{"fonts", []string{"id", "name", "original_name", "system_name", "family", "style",
		"direction", "weight", "file_key", "file_url", "sample_image_url", "is_premium", "installed_on_nodes"}, rows}})
}
