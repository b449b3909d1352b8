package httpapi_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

func TestFontsMusicCategoriesAndTags(t *testing.T) {
	ev := newEnv(t, alone())
	t.Run("fonts are listed by name and deleted by admins", func(t *testing.T) {
		b, a := uuid.New(), uuid.New()
		if _, err := ev.pool.Exec(ctx(t), `INSERT INTO fonts (id, name, family, style, weight, direction, file_url) VALUES
			($1, 'Bravo', 'Bravo', 'italic', 700, 'rtl', 'https://cdn/b.ttf'), ($2, 'Alpha', 'Alpha', 'normal', 400, 'ltr', 'https://cdn/a.ttf')`, b, a); err != nil {
			t.Fatal(err)
		}
		r, err := ev.c.ListFontsWithResponse(ctx(t), ev.user)
		want(t, r, err, 200)
		if d := r.JSON200.Data; len(d) != 2 || d[0].Name != "Alpha" || d[1].Weight != 700 || d[1].Direction != "rtl" {
			t.Errorf("fonts %+v", d)
		}
		d, err := ev.c.DeleteFontWithResponse(ctx(t), a, ev.user)
		want(t, d, err, 403)
		d, err = ev.c.DeleteFontWithResponse(ctx(t), a, ev.admin)
		want(t, d, err, 204)
		d, err = ev.c.DeleteFontWithResponse(ctx(t), a, ev.admin)
		want(t, d, err, 404)
	})

	t.Run("music is created by admins and searched by everyone", func(t *testing.T) {
		for _, m := range []content.MusicTrack{
			{Name: ptr("Morning Light"), Url: ptr("https://cdn/1.mp3"), Genre: ptr("acoustic"), Mood: ptr("calm"), DurationSec: ptr(120.0), Keywords: ptr("sunrise, coffee")},
			{Name: ptr("Summer Drive"), Url: ptr("https://cdn/2.mp3"), Genre: ptr("pop"), Mood: ptr("happy"), DurationSec: ptr(180.0), Caption: ptr("road trip anthem")},
			{Name: ptr("Night Drive"), Url: ptr("https://cdn/3.mp3"), Genre: ptr("electronic"), Mood: ptr("happy"), DurationSec: ptr(240.0),
				Bpm: ptr(128), WaveformData: &map[string]any{"peaks": []any{0.1, 0.5}}},
		} {
			r, err := ev.c.CreateMusicTrackWithResponse(ctx(t), nil, m, ev.admin)
			want(t, r, err, 201)
			if r.JSON201.Id == nil || *r.JSON201.Name != *m.Name || r.JSON201.WaveformData == nil {
				t.Errorf("created %+v", r.JSON201)
			}
		}
		r, err := ev.c.CreateMusicTrackWithResponse(ctx(t), nil, content.MusicTrack{Name: ptr("no url")}, ev.admin)
		want(t, r, err, 400)
		if f := problemFields(r.ApplicationproblemJSON400); !slices.Equal(f, []string{"body.url"}) {
			t.Errorf("fields %v", f)
		}
		r, err = ev.c.CreateMusicTrackWithResponse(ctx(t), nil, content.MusicTrack{Name: ptr("x"), Url: ptr("y")}, ev.user)
		want(t, r, err, 403)

		names := func(p content.ListMusicParams) ([]string, content.PaginationMeta) {
			t.Helper()
			r, err := ev.c.ListMusicWithResponse(ctx(t), &p, ev.user)
			want(t, r, err, 200)
			var out []string
			for _, m := range r.JSON200.Data {
				out = append(out, *m.Name)
			}
			return out, r.JSON200.Meta
		}
		for name, tc := range map[string]struct {
			p    content.ListMusicParams
			want []string
		}{
			"all by name":                 {content.ListMusicParams{}, []string{"Morning Light", "Night Drive", "Summer Drive"}},
			"q searches name":             {content.ListMusicParams{Q: ptr("drive")}, []string{"Night Drive", "Summer Drive"}},
			"q searches keywords":         {content.ListMusicParams{Q: ptr("coffee")}, []string{"Morning Light"}},
			"q searches the caption":      {content.ListMusicParams{Q: ptr("road trip")}, []string{"Summer Drive"}},
			"genre matches exactly":       {content.ListMusicParams{Genre: ptr("pop")}, []string{"Summer Drive"}},
			"mood matches exactly":        {content.ListMusicParams{Mood: ptr("happy")}, []string{"Night Drive", "Summer Drive"}},
			"durations bound inclusively": {content.ListMusicParams{MinDuration: ptr(120.0), MaxDuration: ptr(180.0)}, []string{"Morning Light", "Summer Drive"}},
			"pages hold page_size tracks": {content.ListMusicParams{Page: ptr(2), PageSize: ptr(2)}, []string{"Summer Drive"}},
		} {
			t.Run(name, func(t *testing.T) {
				got, _ := names(tc.p)
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
		_, meta := names(content.ListMusicParams{PageSize: ptr(2)})
		if meta.Total != 3 || !meta.HasMore {
			t.Errorf("meta %+v", meta)
		}
	})

	t.Run("categories form a tree of existing parents", func(t *testing.T) {
		root := ev.category("social", nil)
		child := ev.category("stories", &root)
		r, err := ev.c.CreateCategoryWithResponse(ctx(t), nil, content.Category{Slug: ptr("orphan"), Name: ptr("Orphan"), ParentId: ptr(uuid.New())}, ev.admin)
		want(t, r, err, 400)
		if f := problemFields(r.ApplicationproblemJSON400); !slices.Equal(f, []string{"body.parent_id"}) {
			t.Errorf("fields %v", f)
		}
		r, err = ev.c.CreateCategoryWithResponse(ctx(t), nil, content.Category{Slug: ptr("social"), Name: ptr("Again")}, ev.admin)
		want(t, r, err, 409)
		r, err = ev.c.CreateCategoryWithResponse(ctx(t), nil, content.Category{Name: ptr("No slug")}, ev.admin)
		want(t, r, err, 400)
		r, err = ev.c.CreateCategoryWithResponse(ctx(t), nil, content.Category{Slug: ptr("mine"), Name: ptr("Mine")}, ev.user)
		want(t, r, err, 403)
		l, err := ev.c.ListCategoriesWithResponse(ctx(t), ev.user)
		want(t, l, err, 200)
		if d := l.JSON200.Data; len(d) != 2 || *d[1].Id != child || *d[1].ParentId != root || d[0].ParentId != nil {
			t.Errorf("categories %+v", d)
		}
	})

	t.Run("tags are listed by name", func(t *testing.T) {
		ev.tag("zeta")
		ev.tag("alpha")
		r, err := ev.c.ListTagsWithResponse(ctx(t), ev.user)
		want(t, r, err, 200)
		if d := r.JSON200.Data; len(d) != 2 || d[0].Slug != "alpha" {
			t.Errorf("tags %+v", d)
		}
		r, err = ev.c.ListTagsWithResponse(ctx(t), ev.anon)
		want(t, r, err, 401)
	})
}
