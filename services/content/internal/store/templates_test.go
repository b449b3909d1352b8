package store

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/store/seed"
)

// The catalog search's total, counted in one piece or bucket by bucket, is the number of
// matches up to the bound, for every kind of filter that counts through the buckets' index,
// wherever the matches sit among the buckets and wherever the bound falls inside a bucket; the
// newest template, alone in the last bucket, is counted; and a store walks the buckets once
// the catalog has had a fifth bucket's worth of templates, not before.
func TestTheSearchTotalIsExactCountedWholeOrBucketByBucket(t *testing.T) {
	pool := storePool(t)
	ctx := context.Background()
	info, err := seed.Bench(ctx, pool, 1200)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	var category uuid.UUID
	if err := pool.QueryRow(ctx, "SELECT id FROM categories ORDER BY slug LIMIT 1").Scan(&category); err != nil {
		t.Fatal(err)
	}
	search := func(s *Store, q domain.TemplateQuery, upTo int) int {
		t.Helper()
		q.CountUpTo, q.Sort, q.Page = upTo, domain.SortPopular, domain.PageRequest{Number: 1, Size: 1}
		page, err := s.ListTemplates(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return page.Total
	}

	// A small catalog: the store counts in one piece.
	small := New(pool)
	search(small, domain.TemplateQuery{Text: "wedding"}, 1000)
	if small.catalog.walk() {
		t.Fatalf("a catalog of %d templates is walked bucket by bucket", info.Templates)
	}

	// The templates spread over seven buckets, and the catalog as large as three million
	// templates added (its last bucket, 7, is empty); then one more template, the newest.
	exec("UPDATE containers SET count_bucket = (abs(hashtext(id::text)) % 7)::smallint")
	exec("SELECT setval('containers_count_seq', 3000000)")
	exec(`INSERT INTO containers (id, slug, name, primary_mode, is_published, tag_ids)
		VALUES ($1, 'zebra-wedding', 'Zebra Wedding', 'video', true, ARRAY[$2::uuid])`, uuid.New(), info.TagID)
	var newest int
	if err := pool.QueryRow(ctx, "SELECT count_bucket FROM containers WHERE slug = 'zebra-wedding'").Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if newest != 7 || countBucket(3000000) != 7 {
		t.Fatalf("the template added after 3,000,000 is in bucket %d (Go says %d), want 7", newest, countBucket(3000000))
	}

	whole := &Store{pool: pool, db: pool, q: small.q} // no catalog size: always one piece
	walking := New(pool)
	walking.catalog.saw(walkFromAdded)
	for _, tc := range []struct {
		name string
		q    domain.TemplateQuery
	}{
		{"text", domain.TemplateQuery{Text: "wedding"}},
		{"tag", domain.TemplateQuery{TagIDs: []uuid.UUID{info.TagID}}},
		{"text and tag", domain.TemplateQuery{Text: "wedding", TagIDs: []uuid.UUID{info.TagID}}},
		{"category", domain.TemplateQuery{CategoryID: &category}},
		{"tag, mode and premium", domain.TemplateQuery{TagIDs: []uuid.UUID{info.TagID}, Mode: "video", IsPremium: new(false)}},
		{"text and aspect", domain.TemplateQuery{Text: "wedding", Aspect: "9:16"}},
		{"only the newest", domain.TemplateQuery{Text: "zebra"}},
		{"nothing", domain.TemplateQuery{Text: "quagga"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !bucketed(tc.q) {
				t.Fatal("not a search the buckets count")
			}
			if sql, _ := templateSearchSQL(tc.q, true); !strings.Contains(sql, "WITH RECURSIVE walk") {
				t.Fatal("the walking statement does not walk")
			}
			all := search(whole, tc.q, 1<<30)
			for _, upTo := range []int{1, 5, 17, all - 1, all, all + 1, 1000} {
				if upTo < 1 {
					continue
				}
				want := min(all, upTo)
				if got := search(whole, tc.q, upTo); got != want {
					t.Errorf("up to %d, counted in one piece: %d, want %d", upTo, got, want)
				}
				if got := search(walking, tc.q, upTo); got != want {
					t.Errorf("up to %d, bucket by bucket: %d, want %d (of %d)", upTo, got, want, all)
				}
			}
		})
	}
	var direct int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM containers WHERE is_published AND deleted_at IS NULL
		AND search @@ websearch_to_tsquery('english', 'wedding') AND tag_ids @> ARRAY[$1::uuid]`, info.TagID).Scan(&direct); err != nil {
		t.Fatal(err)
	}
	if got := search(walking, domain.TemplateQuery{Text: "wedding", TagIDs: []uuid.UUID{info.TagID}}, 1000); got != direct || direct < 10 {
		t.Fatalf("text and tag: %d counted bucket by bucket, %d by a plain count (want at least 10)", got, direct)
	}

	// The catalog is now large: a store learns it from its first search.
	large := New(pool)
	search(large, domain.TemplateQuery{Text: "wedding"}, 1000)
	if !large.catalog.walk() {
		t.Fatal("a catalog of 3,000,000 templates added is counted in one piece")
	}
}

// The bucket PostgreSQL gives a template (containers_count_bucket) is the one the store walks
// to, at each bucket's edges.
func TestTheCountBucketsAgreeInGoAndPostgreSQL(t *testing.T) {
	pool := storePool(t)
	seqs := []int64{0, 1, 16383, 16384, 49151, 49152, 114687, 114688, walkFromAdded - 1, walkFromAdded,
		3000000, 1 << 40, 1<<62 + 12345}
	var got []int
	if err := pool.QueryRow(context.Background(),
		"SELECT array_agg(containers_count_bucket(s) ORDER BY i) FROM unnest($1::bigint[]) WITH ORDINALITY AS u(s, i)",
		seqs).Scan(&got); err != nil {
		t.Fatal(err)
	}
	want := []int{0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 7, 26, 48}
	for i, s := range seqs {
		if got[i] != want[i] || countBucket(s) != want[i] {
			t.Errorf("template %d: bucket %d in PostgreSQL, %d in Go, want %d", s, got[i], countBucket(s), want[i])
		}
	}
}
