package httpapi_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/services/content/internal/store/seed"
)

func TestCMSReads(t *testing.T) {
	ev := newEnv(t, alone())
	if err := seed.Demo(ctx(t), ev.pool); err != nil {
		t.Fatal(err)
	}
	t.Run("blogs are listed newest first without future ones, searchable and paginated", func(t *testing.T) {
		slugs := func(p content.ListBlogsParams, caller content.RequestEditorFn) ([]string, content.PaginationMeta) {
			t.Helper()
			r, err := ev.c.ListBlogsWithResponse(ctx(t), &p, caller)
			want(t, r, err, 200)
			var out []string
			for _, b := range r.JSON200.Data {
				out = append(out, b.Slug)
			}
			return out, r.JSON200.Meta
		}
		got, meta := slugs(content.ListBlogsParams{}, ev.user)
		if !slices.Equal(got, []string{"vertical-video-tips", "new-logo-reveals", "how-to-make-a-wedding-slideshow"}) || meta.Total != 3 {
			t.Errorf("blogs %v %+v", got, meta)
		}
		if got, _ := slugs(content.ListBlogsParams{}, ev.admin); len(got) != 4 || got[0] != "coming-soon-ai-voices" {
			t.Errorf("admin blogs %v", got)
		}
		if got, _ := slugs(content.ListBlogsParams{Q: ptr("wedding")}, ev.user); !slices.Equal(got, []string{"how-to-make-a-wedding-slideshow"}) {
			t.Errorf("searched %v", got)
		}
		if got, meta := slugs(content.ListBlogsParams{Page: ptr(2), PageSize: ptr(2)}, ev.user); len(got) != 1 || meta.HasMore || meta.Total != 3 {
			t.Errorf("page 2: %v %+v", got, meta)
		}
	})
	t.Run("a blog is read by slug; a future one is 404 for users", func(t *testing.T) {
		r, err := ev.c.GetBlogWithResponse(ctx(t), "new-logo-reveals", ev.user)
		want(t, r, err, 200)
		if r.JSON200.Kind != "news" || r.JSON200.Title == "" {
			t.Errorf("blog %+v", r.JSON200)
		}
		r, err = ev.c.GetBlogWithResponse(ctx(t), "coming-soon-ai-voices", ev.user)
		want(t, r, err, 404)
		r, err = ev.c.GetBlogWithResponse(ctx(t), "coming-soon-ai-voices", ev.admin)
		want(t, r, err, 200)
		r, err = ev.c.GetBlogWithResponse(ctx(t), "no-such-blog", ev.user)
		want(t, r, err, 404)
	})
	t.Run("slides and home events are listed by sort", func(t *testing.T) {
		s, err := ev.c.ListSlidesWithResponse(ctx(t), ev.user)
		want(t, s, err, 200)
		if d := s.JSON200.Data; len(d) != 3 || d[0].Sort != 1 || d[2].SlideType != "url" {
			t.Errorf("slides %+v", d)
		}
		h, err := ev.c.ListHomeEventsWithResponse(ctx(t), ev.user)
		want(t, h, err, 200)
		if d := h.JSON200.Data; len(d) != 2 || d[0].Title != "Summer sale" || d[1].BackgroundColor == "" {
			t.Errorf("events %+v", d)
		}
	})
	t.Run("settings are the public defaults overlaid by the tenant's own", func(t *testing.T) {
		if _, err := ev.pool.Exec(ctx(t), `INSERT INTO website_settings (tenant_id, key, value, is_public) VALUES
			($1, 'site_name', '"Acme Studio"', true), ($1, 'theme', '{"primary":"#000"}', false), ($1, 'api_key', '"secret"', false)`, ev.tenantID); err != nil {
			t.Fatal(err)
		}
		settings := func(caller content.RequestEditorFn) map[string]any {
			t.Helper()
			r, err := ev.c.GetSettingsWithResponse(ctx(t), caller)
			want(t, r, err, 200)
			var m map[string]any
			if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		mine := settings(ev.user)
		if mine["site_name"] != "Acme Studio" || mine["support_email"] != "support@videotpl.dev" || mine["maintenance_mode"] != false {
			t.Errorf("tenant settings %v", mine)
		}
		for _, hidden := range []string{"theme", "api_key", "render_queue_secret"} {
			if _, ok := mine[hidden]; ok {
				t.Errorf("private key %s served", hidden)
			}
		}
		other := settings(ev.other)
		if other["site_name"] != "Videotpl" || other["theme"] == nil {
			t.Errorf("another tenant gets the defaults: %v", other)
		}
		if svc := settings(ev.svc); svc["site_name"] != "Videotpl" {
			t.Errorf("a service token gets the defaults: %v", svc)
		}
	})
	t.Run("render servers are for service tokens only", func(t *testing.T) {
		r, err := ev.c.ListProjectServersWithResponse(ctx(t), ev.svc)
		want(t, r, err, 200)
		if d := r.JSON200.Data; len(d) != 2 || d[0].Name != "render-eu-1" || d[0].MinioBucketTemplates != "templates" || !d[0].IsActive {
			t.Errorf("servers %+v", d)
		}
		for _, caller := range []content.RequestEditorFn{ev.user, ev.admin, ev.anon} {
			r, err := ev.c.ListProjectServersWithResponse(ctx(t), caller)
			want(t, r, err, 401)
		}
	})
	t.Run("the demo catalog is browsable", func(t *testing.T) {
		r, err := ev.c.ListTemplatesWithResponse(ctx(t), &content.ListTemplatesParams{Q: ptr("wedding")}, ev.user)
		want(t, r, err, 200)
		if r.JSON200.Meta.Total != 2 {
			t.Errorf("wedding templates %d", r.JSON200.Meta.Total)
		}
		if err := seed.Demo(ctx(t), ev.pool); !errors.Is(err, seed.ErrDemoPresent) {
			t.Errorf("second demo seed: %v, want ErrDemoPresent", err)
		}
	})
}

func TestComments(t *testing.T) {
	ev := newEnv(t, alone())
	if err := seed.Demo(ctx(t), ev.pool); err != nil {
		t.Fatal(err)
	}
	var blog uuid.UUID
	if err := ev.pool.QueryRow(ctx(t), "SELECT id FROM blogs WHERE slug = 'new-logo-reveals'").Scan(&blog); err != nil {
		t.Fatal(err)
	}
	tpl, _ := ev.container(containerSpec{slug: "tpl", publish: true})
	draft, _ := ev.container(containerSpec{slug: "draft"})

	r, err := ev.c.CreateCommentWithResponse(ctx(t), nil, content.CommentCreate{Content: "Lovely", Rate: ptr(4.5), BlogId: &blog}, ev.user)
	want(t, r, err, 201)
	var parent uuid.UUID
	var status string
	if err := ev.pool.QueryRow(ctx(t), "SELECT id, status FROM comments WHERE user_id = $1", ev.userID).Scan(&parent, &status); err != nil || status != "pending" {
		t.Fatalf("stored comment status %q, %v", status, err)
	}
	reply, err := ev.c.CreateCommentWithResponse(ctx(t), nil, content.CommentCreate{Content: "Agreed", BlogId: &blog, ParentCommentId: &parent}, ev.other)
	want(t, reply, err, 201)
	onTemplate, err := ev.c.CreateCommentWithResponse(ctx(t), nil, content.CommentCreate{Content: "Great template", ContainerId: &tpl}, ev.user)
	want(t, onTemplate, err, 201)

	for name, tc := range map[string]struct {
		body  content.CommentCreate
		field string
	}{
		"an unknown blog":               {content.CommentCreate{Content: "x", BlogId: ptr(uuid.New())}, "body.blog_id"},
		"an unknown template":           {content.CommentCreate{Content: "x", ContainerId: ptr(uuid.New())}, "body.container_id"},
		"an unpublished template":       {content.CommentCreate{Content: "x", ContainerId: &draft}, "body.container_id"},
		"an unknown parent":             {content.CommentCreate{Content: "x", BlogId: &blog, ParentCommentId: ptr(uuid.New())}, "body.parent_comment_id"},
		"a parent about something else": {content.CommentCreate{Content: "x", ContainerId: &tpl, ParentCommentId: &parent}, "body.parent_comment_id"},
		"no target":                     {content.CommentCreate{Content: "x"}, "body"},
		"two targets":                   {content.CommentCreate{Content: "x", BlogId: &blog, ContainerId: &tpl}, "body"},
		"a rate above 5":                {content.CommentCreate{Content: "x", BlogId: &blog, Rate: ptr(6.0)}, "body.rate"},
	} {
		t.Run(name+" is 400 naming the field", func(t *testing.T) {
			r, err := ev.c.CreateCommentWithResponse(ctx(t), nil, tc.body, ev.user)
			want(t, r, err, 400)
			if f := problemFields(r.ApplicationproblemJSON400); !slices.Contains(f, tc.field) {
				t.Errorf("fields %v, want %s", f, tc.field)
			}
		})
	}
	t.Run("a service token has no user: 403", func(t *testing.T) {
		r, err := ev.c.CreateCommentWithResponse(ctx(t), nil, content.CommentCreate{Content: "x", BlogId: &blog}, ev.svc)
		want(t, r, err, 403)
	})
}
