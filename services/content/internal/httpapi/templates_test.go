package httpapi_test

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/store/seed"
)

func slugsOf(cards []content.TemplateCard) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.Slug
	}
	return out
}

func TestTemplateSearchFiltersSortsAndPaginates(t *testing.T) {
	ev := newEnv(t, alone())
	weddings, travel := ev.category("weddings", nil), ev.category("travel", nil)
	elegant, summer, fun := ev.tag("elegant"), ev.tag("summer"), ev.tag("fun")
	ev.container(containerSpec{slug: "elegant-wedding", name: "Elegant Wedding Slideshow", description: "Photos of the big day",
		categories: []uuid.UUID{weddings}, tags: []uuid.UUID{elegant, fun}, publish: true, aspects: []string{"16:9", "9:16"}})
	ev.container(containerSpec{slug: "summer-travel", name: "Summer Travel Intro", premium: true,
		categories: []uuid.UUID{travel}, tags: []uuid.UUID{summer, fun}, publish: true, aspects: []string{"9:16"}})
	ev.container(containerSpec{slug: "beach-wedding", name: "Beach Wedding Story", mode: "photo",
		categories: []uuid.UUID{weddings, travel}, tags: []uuid.UUID{summer, elegant, fun}, publish: true, aspects: []string{"1:1"}})
	ev.container(containerSpec{slug: "draft-wedding", name: "Draft Wedding", tags: []uuid.UUID{elegant}, aspects: []string{"16:9"}})
	// Popularity and rating are not writable through the API.
	for slug, v := range map[string][2]float64{"elegant-wedding": {500, 4.5}, "summer-travel": {900, 4.9}, "beach-wedding": {100, 4.9}} {
		if _, err := ev.pool.Exec(ctx(t), "UPDATE containers SET use_count = $2, rate_avg = $3, rate_count = $4 WHERE slug = $1", slug, int64(v[0]), v[1], int32(v[0])); err != nil {
			t.Fatal(err)
		}
	}
	newest := content.ListTemplatesParamsSortNewest
	popular := content.ListTemplatesParamsSortPopular
	rate := content.ListTemplatesParamsSortRate
	az := content.ListTemplatesParamsSortAz
	a169, a916 := content.ListTemplatesParamsAspectN169, content.ListTemplatesParamsAspectN916
	cases := []struct {
		name   string
		params content.ListTemplatesParams
		want   []string
		total  int
	}{
		{"without filters it lists the published templates newest first",
			content.ListTemplatesParams{}, []string{"beach-wedding", "summer-travel", "elegant-wedding"}, 3},
		{"q searches name, description and keywords",
			content.ListTemplatesParams{Q: ptr("wedding"), Sort: &az}, []string{"beach-wedding", "elegant-wedding"}, 2},
		{"q matches the description too",
			content.ListTemplatesParams{Q: ptr("photos")}, []string{"elegant-wedding"}, 1},
		{"tag_ids keeps templates having all the given tags",
			content.ListTemplatesParams{TagIds: &[]uuid.UUID{summer, fun}, Sort: &popular}, []string{"summer-travel", "beach-wedding"}, 2},
		{"category_id keeps templates of the category",
			content.ListTemplatesParams{CategoryId: &travel, Sort: &az}, []string{"beach-wedding", "summer-travel"}, 2},
		{"mode filters on primary_mode",
			content.ListTemplatesParams{Mode: ptr("photo")}, []string{"beach-wedding"}, 1},
		{"aspect keeps templates with a project of that aspect",
			content.ListTemplatesParams{Aspect: &a916, Sort: &az}, []string{"elegant-wedding", "summer-travel"}, 2},
		{"aspect 16:9 excludes the unpublished draft",
			content.ListTemplatesParams{Aspect: &a169}, []string{"elegant-wedding"}, 1},
		{"is_premium keeps premium templates",
			content.ListTemplatesParams{IsPremium: ptr(true)}, []string{"summer-travel"}, 1},
		{"popular sorts by use_count desc",
			content.ListTemplatesParams{Sort: &popular}, []string{"summer-travel", "elegant-wedding", "beach-wedding"}, 3},
		{"rate sorts by rate_avg then rate_count desc",
			content.ListTemplatesParams{Sort: &rate}, []string{"summer-travel", "beach-wedding", "elegant-wedding"}, 3},
		{"newest sorts by creation desc",
			content.ListTemplatesParams{Sort: &newest}, []string{"beach-wedding", "summer-travel", "elegant-wedding"}, 3},
		{"a page holds page_size cards and the exact total",
			content.ListTemplatesParams{Sort: &az, Page: ptr(2), PageSize: ptr(2)}, []string{"summer-travel"}, 3},
		{"a page past the end is empty but keeps the total",
			content.ListTemplatesParams{Page: ptr(5), PageSize: ptr(2)}, []string{}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ev.c.ListTemplatesWithResponse(ctx(t), &tc.params, ev.user)
			want(t, r, err, 200)
			if got := slugsOf(r.JSON200.Data); !slices.Equal(got, tc.want) {
				t.Errorf("slugs %v, want %v", got, tc.want)
			}
			if r.JSON200.Meta.Total != tc.total {
				t.Errorf("total %d, want %d", r.JSON200.Meta.Total, tc.total)
			}
		})
	}

	t.Run("has_more tells whether another page follows", func(t *testing.T) {
		r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{PageSize: ptr(2)}, ev.user)
		want(t, r, err, 200)
		if m := r.JSON200.Meta; !m.HasMore || m.Page != 1 || m.PageSize != 2 {
			t.Errorf("meta %+v, want page 1 of size 2 with more", m)
		}
	})
	t.Run("a card carries the aspects of its published projects", func(t *testing.T) {
		r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{Q: ptr("elegant")}, ev.user)
		want(t, r, err, 200)
		if got := r.JSON200.Data[0].AvailableAspects; !slices.Equal(got, []string{"16:9", "9:16"}) {
			t.Errorf("aspects %v", got)
		}
	})
	t.Run("admins also see unpublished templates", func(t *testing.T) {
		r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{Q: ptr("draft")}, ev.admin)
		want(t, r, err, 200)
		if got := slugsOf(r.JSON200.Data); !slices.Equal(got, []string{"draft-wedding"}) {
			t.Errorf("slugs %v", got)
		}
	})
	t.Run("page_size above 100 is a 400 naming the parameter", func(t *testing.T) {
		r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{PageSize: ptr(101)}, ev.user)
		want(t, r, err, 400)
		if f := problemFields(r.ApplicationproblemJSON400); !slices.Contains(f, "query.page_size") {
			t.Errorf("fields %v", f)
		}
	})
	t.Run("without a token the catalog is 401", func(t *testing.T) {
		r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{}, ev.anon)
		want(t, r, err, 401)
		if r.HTTPResponse.Header.Get("WWW-Authenticate") == "" {
			t.Error("no WWW-Authenticate challenge")
		}
	})
}

func TestTemplateDetailByIDOrSlug(t *testing.T) {
	ev := newEnv(t, alone())
	cat := ev.category("weddings", nil)
	tag := ev.tag("elegant")
	id, projects := ev.container(containerSpec{slug: "elegant-wedding", categories: []uuid.UUID{cat}, tags: []uuid.UUID{tag},
		publish: true, aspects: []string{"16:9", "1:1"}})
	draft, _ := ev.container(containerSpec{slug: "draft"})
	gone, _ := ev.container(containerSpec{slug: "gone", publish: true})
	r, err := ev.c.DeleteContainerWithResponse(ctx(t), gone, ev.admin)
	want(t, r, err, 204)

	for _, key := range []string{id.String(), "elegant-wedding"} {
		r, err := ev.c.GetTemplateWithResponse(ctx(t), key, ev.user)
		want(t, r, err, 200)
		d := r.JSON200
		if d.Container.Id != id || len(d.Projects) != len(projects) || len(d.Categories) != 1 || len(d.Tags) != 1 {
			t.Errorf("detail by %q: %+v", key, d)
		}
		if *d.Categories[0].Id != cat || d.Tags[0].Id != tag {
			t.Errorf("links by %q: %v %v", key, d.Categories, d.Tags)
		}
	}
	for name, tc := range map[string]struct {
		key    string
		caller content.RequestEditorFn
		status int
	}{
		"an absent slug is 404":                     {"no-such-template", ev.user, 404},
		"an absent id is 404":                       {uuid.NewString(), ev.user, 404},
		"an unpublished template is 404 for users":  {draft.String(), ev.user, 404},
		"an unpublished template is 200 for admins": {"draft", ev.admin, 200},
		"a deleted template is 404 even for admins": {"gone", ev.admin, 404},
		"without a token it is 401":                 {"elegant-wedding", ev.anon, 401},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := ev.c.GetTemplateWithResponse(ctx(t), tc.key, tc.caller)
			want(t, r, err, tc.status)
		})
	}
	t.Run("the projects of a template are listed by name", func(t *testing.T) {
		r, err := ev.c.ListTemplateProjectsWithResponse(ctx(t), id, ev.user)
		want(t, r, err, 200)
		if len(r.JSON200.Data) != 2 || r.JSON200.Data[0].Name != "Variant 16:9" {
			t.Errorf("projects %+v", r.JSON200.Data)
		}
		r, err = ev.c.ListTemplateProjectsWithResponse(ctx(t), draft, ev.user)
		want(t, r, err, 404)
	})
}

func TestTemplateSearchCountsTheTotalUpToABoundAndHasMoreTellsTheRest(t *testing.T) {
	ev := newEnv(t, withConfig(func(c *app.Config) { c.SearchCountUpTo = 2 }))
	tag := ev.tag("counted")
	for _, slug := range []string{"counted-a", "counted-b", "counted-c"} {
		ev.container(containerSpec{slug: slug, name: "Counted " + slug, tags: []uuid.UUID{tag}, publish: true})
	}
	az := content.ListTemplatesParamsSortAz
	for _, tc := range []struct {
		name       string
		page, size int
		slugs      []string
		total      int
		more       bool
	}{
		{"the first page: the count stops at its bound, and more follow", 1, 1, []string{"counted-a"}, 2, true},
		{"a page past the bound: the total is where the page ends", 3, 1, []string{"counted-c"}, 3, false},
		{"a page holding every match: the total is what it holds", 1, 5, []string{"counted-a", "counted-b", "counted-c"}, 3, false},
		{"a page past the end: the counted total, nothing more", 4, 1, []string{}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{TagIds: &[]uuid.UUID{tag},
				Sort: &az, Page: ptr(tc.page), PageSize: ptr(tc.size)}, ev.user)
			want(t, r, err, 200)
			m := r.JSON200.Meta
			if got := slugsOf(r.JSON200.Data); !slices.Equal(got, tc.slugs) || m.Total != tc.total || m.HasMore != tc.more {
				t.Errorf("slugs %v, total %d, has_more %v; want %v, %d, %v", got, m.Total, m.HasMore, tc.slugs, tc.total, tc.more)
			}
		})
	}
}

func TestRelatedTemplatesRankBySharedCategoriesAndTags(t *testing.T) {
	ev := newEnv(t, alone())
	c1, c2 := ev.category("c1", nil), ev.category("c2", nil)
	t1, t2, t3 := ev.tag("t1"), ev.tag("t2"), ev.tag("t3")
	src, _ := ev.container(containerSpec{slug: "source", categories: []uuid.UUID{c1, c2}, tags: []uuid.UUID{t1, t2, t3}, publish: true})
	ev.container(containerSpec{slug: "shares-four", categories: []uuid.UUID{c1, c2}, tags: []uuid.UUID{t1, t2}, publish: true})
	ev.container(containerSpec{slug: "shares-one", tags: []uuid.UUID{t3}, publish: true})
	ev.container(containerSpec{slug: "shares-two", categories: []uuid.UUID{c1}, tags: []uuid.UUID{t3}, publish: true})
	ev.container(containerSpec{slug: "shares-none", publish: true})
	ev.container(containerSpec{slug: "unpublished", categories: []uuid.UUID{c1, c2}, tags: []uuid.UUID{t1, t2, t3}})

	r, err := ev.c.ListRelatedTemplatesWithResponse(ctx(t), src, &content.ListRelatedTemplatesParams{}, ev.user)
	want(t, r, err, 200)
	if got := slugsOf(r.JSON200.Data); !slices.Equal(got, []string{"shares-four", "shares-two", "shares-one"}) {
		t.Errorf("related %v", got)
	}
	r, err = ev.c.ListRelatedTemplatesWithResponse(ctx(t), src, &content.ListRelatedTemplatesParams{Limit: ptr(1)}, ev.user)
	want(t, r, err, 200)
	if got := slugsOf(r.JSON200.Data); !slices.Equal(got, []string{"shares-four"}) {
		t.Errorf("limited %v", got)
	}
	r, err = ev.c.ListRelatedTemplatesWithResponse(ctx(t), uuid.New(), &content.ListRelatedTemplatesParams{}, ev.user)
	want(t, r, err, 404)
}

// BenchmarkTemplateSearch runs the benchmark's catalog search (q + tag + popular) through the
// whole stack on a synthetic catalog.
func BenchmarkTemplateSearch(b *testing.B) {
	ev := newEnv(b, alone())
	info, err := seed.Bench(ctx(b), ev.pool, 2000)
	if err != nil {
		b.Fatal(err)
	}
	v := url.Values{"q": {info.Query}, "tag_ids": {info.TagID.String()}, "sort": {"popular"}}
	req, err := http.NewRequest(http.MethodGet, ev.base+"/v1/templates?"+v.Encode(), nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+ev.auth.Token(b))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
