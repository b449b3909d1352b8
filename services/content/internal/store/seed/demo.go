package seed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// demoNamespace makes the demo's ids stable, so `seed --demo` can tell it already ran.
var demoNamespace = uuid.MustParse("6f1c2a8e-5d3b-4c7a-9e21-0b8f4d6a1c35")

func demoID(name string) uuid.UUID { return uuid.NewSHA1(demoNamespace, []byte(name)) }

// ErrDemoPresent reports that the demo catalog is already in the database.
var ErrDemoPresent = errors.New("the demo catalog is already present")

// DemoTemplate is one template of the demo catalog.
type demoTemplate struct {
	slug, name, description, keywords, mode string
	premium                                 bool
	uses                                    int64
	rate                                    float64
	categories, tags                        []string
	aspects                                 []string
}

var demoTemplates = []demoTemplate{
	{"elegant-wedding-slideshow", "Elegant Wedding Slideshow", "A romantic slideshow for your wedding photos with soft transitions.",
		"wedding, love, romantic, photos", "video", false, 48210, 4.8, []string{"weddings"}, []string{"elegant", "romantic"}, []string{"16:9", "9:16", "1:1"}},
	{"wedding-invitation-story", "Wedding Invitation Story", "Invite your guests with an animated vertical story.",
		"wedding, invitation, save the date", "video", true, 21877, 4.6, []string{"weddings", "instagram-stories"}, []string{"elegant", "instagram"}, []string{"9:16"}},
	{"corporate-promo", "Corporate Promo", "Present your company, team and numbers in ninety seconds.",
		"business, company, presentation", "video", true, 15502, 4.4, []string{"business"}, []string{"corporate", "minimal"}, []string{"16:9", "1:1"}},
	{"minimal-logo-reveal", "Minimal Logo Reveal", "A clean logo reveal with a light sweep.",
		"logo, intro, brand", "video", false, 90311, 4.7, []string{"logo-reveals", "business"}, []string{"minimal", "corporate"}, []string{"16:9", "1:1", "4:5"}},
	{"summer-travel-vlog-intro", "Summer Travel Vlog Intro", "Bright, fast cuts for your travel videos.",
		"travel, vlog, summer, beach", "video", false, 33420, 4.5, []string{"travel", "social-media"}, []string{"summer", "fun", "cinematic"}, []string{"16:9", "9:16"}},
	{"instagram-sale-post", "Instagram Sale Post", "Announce a sale with bold type and your product photos.",
		"sale, discount, shop, instagram", "photo", false, 12890, 4.2, []string{"social-media"}, []string{"instagram", "fun"}, []string{"1:1", "4:5"}},
	{"holiday-greetings", "Holiday Greetings", "Warm season's greetings with snow and lights.",
		"christmas, new year, holiday, greetings", "video", false, 27345, 4.6, []string{"holidays"}, []string{"romantic", "cinematic"}, []string{"16:9", "9:16", "1:1"}},
	{"phone-app-mockup", "Phone App Mockup", "Show your app's screens on a rotating phone.",
		"app, mockup, phone, product", "mockup", true, 8120, 4.3, []string{"business"}, []string{"minimal"}, []string{"16:9", "4:5"}},
}

// Demo writes the demo catalog used by `make run`: categories, tags, fonts, music, render
// servers, eight templates with projects (the first project of each with scenes and
// elements), blogs, slides, home events and the platform's default website settings. It
// returns ErrDemoPresent when the catalog is already there, so running it twice is harmless.
func Demo(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// One seeder at a time; the second finds the catalog present.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('content-demo-seed'))"); err != nil {
			return err
		}
		var present bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM containers WHERE id = $1)", demoID("template:"+demoTemplates[0].slug)).Scan(&present); err != nil {
			return err
		}
		if present {
			return ErrDemoPresent
		}
		return demo(ctx, tx)
	})
}

func demo(ctx context.Context, tx pgx.Tx) error {
	rng := rand.New(rand.NewPCG(7, 7)) //nolint:gosec // demo data
	now := time.Now().UTC().Truncate(time.Second)
	categories := []struct{ slug, name, parent string }{
		{"weddings", "Weddings", ""}, {"business", "Business", ""}, {"social-media", "Social Media", ""},
		{"instagram-stories", "Instagram Stories", "social-media"}, {"travel", "Travel", ""},
		{"holidays", "Holidays", ""}, {"logo-reveals", "Logo Reveals", "business"},
	}
	var cats [][]any
	for i, c := range categories {
		var parent *uuid.UUID
		if c.parent != "" {
			p := demoID("category:" + c.parent)
			parent = &p
		}
		cats = append(cats, []any{demoID("category:" + c.slug), c.slug, c.name, c.name + " templates",
			"https://cdn.videotpl.dev/categories/" + c.slug + ".jpg", c.slug, parent, i + 1})
	}
	var tags [][]any
	for _, t := range []string{"elegant", "romantic", "minimal", "corporate", "instagram", "cinematic", "fun", "summer"} {
		tags = append(tags, []any{demoID("tag:" + t), t, t, t, ""})
	}
	var containers, ccats, ctags, projects [][]any
	var firstProjects []uuid.UUID
	for i, t := range demoTemplates {
		id := demoID("template:" + t.slug)
		catIDs, tagIDs := make([]uuid.UUID, len(t.categories)), make([]uuid.UUID, len(t.tags))
		for k, c := range t.categories {
			catIDs[k] = demoID("category:" + c)
			ccats = append(ccats, []any{id, catIDs[k]})
		}
		for k, tg := range t.tags {
			tagIDs[k] = demoID("tag:" + tg)
			ctags = append(ctags, []any{id, tagIDs[k]})
		}
		created := now.Add(-time.Duration(len(demoTemplates)-i) * 72 * time.Hour)
		containers = append(containers, []any{id, t.slug, t.name, t.description, t.keywords, "",
			"https://cdn.videotpl.dev/templates/" + t.slug + ".jpg", "https://cdn.videotpl.dev/templates/" + t.slug + ".mp4",
			"https://cdn.videotpl.dev/templates/" + t.slug + "-full.mp4", "https://cdn.videotpl.dev/templates/" + t.slug + "-mini.mp4",
			true, t.premium, t.mode == "mockup", t.mode, t.rate, int(t.uses / 40), t.uses, catIDs, tagIDs, created, created})
		for k, aspect := range t.aspects {
			pid := demoID("project:" + t.slug + ":" + aspect)
			if k == 0 {
				firstProjects = append(firstProjects, pid)
			}
			w, h := dims(aspect)
			server := demoID("server:eu-1")
			projects = append(projects, []any{pid, id, &server, fmt.Sprintf("%s (%s)", t.name, aspect), aspect, fmt.Sprintf("%dx%d", w, h),
				"free", "https://cdn.videotpl.dev/projects/" + pid.String() + ".jpg", w, h, 30.0, t.description,
				"https://cdn.videotpl.dev/projects/" + pid.String() + ".mp4", "", 10.0, 120.0, 25, 1.5, "Main Comp", true, created, created})
		}
	}
	servers := [][]any{
		{demoID("server:eu-1"), "render-eu-1", "eu-central", "10.0.1.10", "/srv/projects", "/srv/output",
			"http://minio-eu.internal:9000", "templates", "outputs", true},
		{demoID("server:us-1"), "render-us-1", "us-east", "10.0.2.10", "/srv/projects", "/srv/output",
			"http://minio-us.internal:9000", "templates", "outputs", true},
	}
	var music [][]any
	for i, m := range []struct {
		name, genre, mood string
		dur               float64
		bpm               int
	}{
		{"Morning Light", "acoustic", "calm", 142, 84}, {"Corporate Rise", "corporate", "uplifting", 128, 110},
		{"Summer Drive", "pop", "happy", 176, 120}, {"First Dance", "piano", "romantic", 201, 70},
		{"Neon Nights", "electronic", "energetic", 154, 128}, {"Snowfall", "orchestral", "warm", 187, 90},
	} {
		music = append(music, []any{demoID("music:" + m.name), m.name, m.name + " - royalty-free", m.genre + ", " + m.mood,
			"https://cdn.videotpl.dev/music/" + fmt.Sprint(i+1) + ".mp3", m.genre, m.mood, m.dur, m.bpm, i%3 == 2,
			mustJSON(map[string]any{"peaks": []float64{0.1, 0.4, 0.8, 0.6, 0.3}}), now})
	}
	var blogs [][]any
	for i, b := range []struct {
		slug, kind, title, short string
		days                     int
	}{
		{"how-to-make-a-wedding-slideshow", "tutorial", "How to make a wedding slideshow", "Five steps from photos to a finished video.", -30},
		{"new-logo-reveals", "news", "Twelve new logo reveals", "Fresh intros for your brand.", -10},
		{"vertical-video-tips", "article", "Vertical video tips", "Make the most of 9:16.", -3},
		{"coming-soon-ai-voices", "news", "Coming soon: AI voices", "Narration for every template.", 14},
	} {
		blogs = append(blogs, []any{demoID("blog:" + b.slug), b.slug, b.kind, b.title, b.short,
			b.short + " This is the article body of the demo catalog.", "https://cdn.videotpl.dev/blog/" + b.slug + ".jpg",
			"https://cdn.videotpl.dev/blog/" + b.slug + "-cover.jpg", "Videotpl team", now.Add(time.Duration(b.days) * 24 * time.Hour), int64(100 * (i + 1))})
	}
	slides := [][]any{
		{demoID("slide:weddings"), "Wedding season", "https://cdn.videotpl.dev/slides/weddings.jpg", "wedding", "category", "weddings", 1},
		{demoID("slide:logo"), "Minimal Logo Reveal", "https://cdn.videotpl.dev/slides/logo.jpg", "logo", "template", "minimal-logo-reveal", 2},
		{demoID("slide:blog"), "Vertical video tips", "https://cdn.videotpl.dev/slides/blog.jpg", "vertical", "url", "/blog/vertical-video-tips", 3},
	}
	events := [][]any{
		{demoID("event:summer"), "Summer sale", "30% off premium", "All premium templates until August.", "Browse",
			"/templates?is_premium=true", "-30%", "https://cdn.videotpl.dev/events/summer.jpg", "#ff7043", "#fff3e0", "#212121", 1},
		{demoID("event:ai"), "AI voices", "Narration in 20 languages", "Give every template a voice.", "Learn more",
			"/blog/coming-soon-ai-voices", "new", "https://cdn.videotpl.dev/events/ai.jpg", "#1e88e5", "#e3f2fd", "#0d47a1", 2},
	}
	settings := [][]any{
		{uuid.Nil, "site_name", mustJSON("Videotpl"), true}, {uuid.Nil, "support_email", mustJSON("support@videotpl.dev"), true},
		{uuid.Nil, "theme", mustJSON(map[string]string{"primary": "#1e88e5", "mode": "light"}), true},
		{uuid.Nil, "maintenance_mode", mustJSON(false), true}, {uuid.Nil, "render_queue_secret", mustJSON("not-for-clients"), false},
	}
	err := copyAll(ctx, tx, []copyTable{
		{"categories", []string{"id", "slug", "name", "description", "image_url", "icon", "parent_id", "sort"}, cats},
		{"tags", []string{"id", "slug", "name", "latin_name", "applies_to_mode"}, tags},
		{"project_servers", []string{"id", "name", "region", "ip", "default_project_address", "render_output_location",
			"minio_endpoint", "minio_bucket_templates", "minio_bucket_outputs", "is_active"}, servers},
		{"containers", []string{"id", "slug", "name", "description", "keywords", "news_text", "image", "demo", "full_demo",
			"mini_demo", "is_published", "is_premium", "is_mockup", "primary_mode", "rate_avg", "rate_count", "use_count",
			"category_ids", "tag_ids", "created_at", "updated_at"}, containers},
		{"container_categories", []string{"container_id", "category_id"}, ccats},
		{"container_tags", []string{"container_id", "tag_id"}, ctags},
		{"projects", []string{"id", "container_id", "project_server_id", "name", "aspect", "resolution", "choose_mode", "image",
			"original_width", "original_height", "project_duration_sec", "description", "full_demo", "download_link",
			"min_duration_sec", "max_duration_sec", "free_fps", "vip_factor", "render_aep_comp", "is_published", "created_at",
			"updated_at"}, projects},
		{"music_tracks", []string{"id", "name", "caption", "keywords", "url", "genre", "mood", "duration_sec", "bpm", "is_premium",
			"waveform_data", "created_at"}, music},
		{"blogs", []string{"id", "slug", "kind", "title", "short_description", "content", "image", "cover", "author_display_name",
			"publish_date", "view_count"}, blogs},
		{"slides", []string{"id", "title", "image", "keyword", "slide_type", "parameter", "sort"}, slides},
		{"home_events", []string{"id", "title", "subtitle", "description", "button_text", "button_url", "badge", "image", "color",
			"background_color", "text_color", "sort"}, events},
		{"website_settings", []string{"tenant_id", "key", "value", "is_public"}, settings},
	})
	if err != nil {
		return err
	}
	fonts, err := insertFonts(ctx, tx, ids{rng})
	if err != nil {
		return err
	}
	for _, pid := range firstProjects {
		if err := InsertProjectContent(ctx, tx, rng, pid, ProjectShape{Scenes: 5, ContentsPerScene: 6, ColorsPerScene: 3, Extras: true}, fonts); err != nil {
			return err
		}
	}
	return nil
}
