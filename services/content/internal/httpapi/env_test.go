package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/migrations"
)

// env is one content service on its own database, served on loopback, with a client whose
// every response is validated against the spec and the credentials of the test's callers.
type env struct {
	t                testing.TB
	auth             *authtest.Issuer // signs the callers' tokens
	pool             *pgxpool.Pool
	dbURL            string
	base             string
	c                *content.ClientWithResponses
	admin            content.RequestEditorFn // JWT with the admin role
	user             content.RequestEditorFn // JWT without roles
	other            content.RequestEditorFn // another user of another tenant
	svc              content.RequestEditorFn // service token without scopes
	svcAdm           content.RequestEditorFn // service token with content:admin
	anon             content.RequestEditorFn // no Authorization header
	userID, tenantID uuid.UUID
}

var migrationSet = pgxdb.Migrations{Name: "content", FS: migrations.FS}

func newEnv(t testing.TB) *env {
	t.Helper()
	_, dbURL := pgtest.NewDB(t, migrationSet)
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return newEnvOn(t, openPool(t, cfg), dbURL)
}

// openPool opens a pool configured as the service configures its own (store.ConfigurePool).
func openPool(t testing.TB, cfg *pgxpool.Config) *pgxpool.Pool {
	t.Helper()
	store.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newEnvOn serves the API on an existing pool (e.g. one with a query tracer).
func newEnvOn(t testing.TB, pool *pgxpool.Pool, dbURL string) *env {
	t.Helper()
	issuer := authtest.New(t)
	svcToken := issuer.ServiceToken(t, "render-farm")
	admToken := issuer.ServiceToken(t, "cms-admin", "content:admin")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e, err := httpapi.NewHTTP(httpapi.New(app.New(store.New(pool)), nil), httpapi.HTTPOptions{Auth: issuer.Authenticator(t), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	base := httpxtest.Start(t, e)
	spec, err := contentserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	c, err := content.NewClientWithResponses(base+httpapi.BasePath, content.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ev := &env{t: t, auth: issuer, pool: pool, dbURL: dbURL, base: base, c: c, userID: uuid.New(), tenantID: uuid.New()}
	ev.admin = authtest.Bearer(issuer.Token(t, authtest.Roles("admin")))
	ev.user = authtest.Bearer(issuer.Token(t, authtest.Subject(ev.userID), authtest.Tenant(ev.tenantID)))
	ev.other = authtest.Bearer(issuer.Token(t))
	ev.svc = authtest.Bearer(svcToken)
	ev.svcAdm = authtest.Bearer(admToken)
	ev.anon = func(context.Context, *http.Request) error { return nil }
	return ev
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// response is what every generated response offers.
type response interface{ StatusCode() int }

// want fails the test unless the response has the status.
func want(t testing.TB, r response, err error, status int) {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	if r.StatusCode() != status {
		body := ""
		if v := reflect.Indirect(reflect.ValueOf(r)).FieldByName("Body"); v.IsValid() {
			body = string(v.Bytes())
		}
		t.Fatalf("status %d, want %d %s", r.StatusCode(), status, body)
	}
}

// problemFields returns the field names of a problem's errors.
func problemFields(p *content.Problem) []string {
	if p == nil || p.Errors == nil {
		return nil
	}
	out := make([]string, 0, len(*p.Errors))
	for _, e := range *p.Errors {
		out = append(out, e.Field)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// --- fixtures, written through the API as an admin ---

func (ev *env) category(slug string, parent *uuid.UUID) uuid.UUID {
	ev.t.Helper()
	r, err := ev.c.CreateCategoryWithResponse(ctx(ev.t), content.Category{Slug: &slug, Name: ptr("Category " + slug), ParentId: parent}, ev.admin)
	want(ev.t, r, err, 201)
	return *r.JSON201.Id
}

// tag inserts a tag (the API has no tag write).
func (ev *env) tag(slug string) uuid.UUID {
	ev.t.Helper()
	id := uuid.New()
	if _, err := ev.pool.Exec(ctx(ev.t), "INSERT INTO tags (id, slug, name) VALUES ($1, $2, $3)", id, slug, "Tag "+slug); err != nil {
		ev.t.Fatal(err)
	}
	return id
}

type containerSpec struct {
	slug, name, description, mode string
	premium                       bool
	categories, tags              []uuid.UUID
	publish                       bool
	aspects                       []string
}

// container creates (and publishes when asked) a container with one project per aspect.
func (ev *env) container(s containerSpec) (uuid.UUID, []uuid.UUID) {
	ev.t.Helper()
	if s.mode == "" {
		s.mode = "video"
	}
	if s.name == "" {
		s.name = s.slug
	}
	body := content.ContainerCreate{Slug: s.slug, Name: s.name, PrimaryMode: s.mode, IsPremium: &s.premium}
	if s.description != "" {
		body.Description = &s.description
	}
	if s.categories != nil {
		body.CategoryIds = &s.categories
	}
	if s.tags != nil {
		body.TagIds = &s.tags
	}
	r, err := ev.c.CreateContainerWithResponse(ctx(ev.t), body, ev.admin)
	want(ev.t, r, err, 201)
	id := r.JSON201.Id
	var projects []uuid.UUID
	for _, a := range s.aspects {
		projects = append(projects, ev.project(id, a))
	}
	if s.publish {
		pr, err := ev.c.PublishContainerWithResponse(ctx(ev.t), id, ev.admin)
		want(ev.t, pr, err, 204)
	}
	return id, projects
}

func (ev *env) project(container uuid.UUID, aspect string) uuid.UUID {
	ev.t.Helper()
	r, err := ev.c.CreateProjectWithResponse(ctx(ev.t), content.ProjectCreate{ContainerId: container, Name: "Variant " + aspect,
		OriginalWidth: 1920, OriginalHeight: 1080, ProjectDurationSec: 30, ChooseMode: "free", Aspect: &aspect}, ev.admin)
	want(ev.t, r, err, 201)
	return r.JSON201.Id
}

func (ev *env) scene(project uuid.UUID, key string) content.Scene {
	ev.t.Helper()
	r, err := ev.c.CreateSceneWithResponse(ctx(ev.t), project, content.SceneCreate{Key: key, Title: "Scene " + key}, ev.admin)
	want(ev.t, r, err, 201)
	return *r.JSON201
}

// publishedProject is a project of a published container.
func (ev *env) publishedProject(slug string) uuid.UUID {
	ev.t.Helper()
	_, ps := ev.container(containerSpec{slug: slug, publish: true, aspects: []string{"16:9"}})
	return ps[0]
}
