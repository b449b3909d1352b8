package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/busapi"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/internal/store/storetest"
	"github.com/videotpl/platform/services/content/migrations"
)

// env is one content service on its own database, its own buckets on the test MinIO and its
// own exchange and queues on the test RabbitMQ, served on loopback, with a client whose every
// response is validated against the spec and the credentials of the test's callers.
type env struct {
	t     testing.TB
	pool  *pgxpool.Pool
	dbURL string
	base  string
	c     *content.ClientWithResponses
	app   *app.App
	s3    *store.S3
	bus   bus.Config
	log   *slog.Logger
	// auth signs the callers' tokens.
	auth *authtest.Issuer
	// running is the outbox forwarder and preview-job consumer, once started.
	running *busapi.Bus

	admin  content.RequestEditorFn // JWT with the admin role, of the user's tenant
	user   content.RequestEditorFn // JWT without roles
	other  content.RequestEditorFn // another user of another tenant
	svc    content.RequestEditorFn // service token without scopes
	svcAdm content.RequestEditorFn // service token with content:admin
	anon   content.RequestEditorFn // no Authorization header
	// adminToken is the admin's bearer token (for requests built by hand).
	adminToken       string
	userID, tenantID uuid.UUID
}

// envOptions tune newEnv.
type envOptions struct {
	config   func(*app.Config)
	model    svgpreview.ZoneSource
	exchange string
	tracer   pgx.QueryTracer
	bus      bool
}

type option func(*envOptions)

// withConfig adjusts the application's configuration (bounds, ages, part sizes).
func withConfig(f func(*app.Config)) option { return func(o *envOptions) { o.config = f } }

// withModel gives the preview generator a vision model.
func withModel(m svgpreview.ZoneSource) option { return func(o *envOptions) { o.model = m } }

// withExchange uses the named events exchange instead of one unique to the test.
func withExchange(name string) option { return func(o *envOptions) { o.exchange = name } }

// withTracer traces every statement of the service's pool.
func withTracer(t pgx.QueryTracer) option { return func(o *envOptions) { o.tracer = t } }

// withBus starts the outbox forwarder and the preview-job consumer with the service.
func withBus() option { return func(o *envOptions) { o.bus = true } }

func newEnv(t testing.TB, opts ...option) *env {
	t.Helper()
	var o envOptions
	for _, f := range opts {
		f(&o)
	}
	ev := &env{t: t, userID: uuid.New(), tenantID: uuid.New(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if testing.Verbose() {
		ev.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	_, ev.dbURL = pgtest.NewDB(t, migrations.Sets()...)
	ev.pool = openPool(t, ev.dbURL, o.tracer)

	var err error
	if ev.s3, err = store.NewS3(storetest.S3Config(t)); err != nil {
		t.Fatal(err)
	}
	cfg := app.Config{TemplatesBucket: storetest.Bucket(t, ev.s3, "tpl"), MediaBucket: storetest.Bucket(t, ev.s3, "media"),
		AepMaxSingleUpload: 512 << 20, AepChunkSize: 64 << 20, PartURLTTL: 24 * time.Hour,
		AepUploadMaxAge: 7 * 24 * time.Hour, PreviewTimeout: 30 * time.Minute,
		DefaultTenantID: uuid.MustParse("00000000-0000-0000-0000-000000000001")}
	if o.config != nil {
		o.config(&cfg)
	}
	for _, b := range []string{cfg.TemplatesBucket, cfg.MediaBucket} {
		if err := ev.s3.EnsureBucket(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	ev.app = app.New(store.New(ev.pool), ev.s3, svgpreview.New(svgpreview.Options{}, o.model, ev.log), cfg, ev.log)

	ev.bus = bustest.Config(t) // its own queues and exchanges, removed when the test ends
	ev.bus.ProgressExchange = ""
	ev.bus.Retry = bus.RetryConfig{MaxRetries: 2, InitialInterval: 20 * time.Millisecond, MaxInterval: 100 * time.Millisecond}
	ev.bus.Outbox = bus.OutboxConfig{PollInterval: 20 * time.Millisecond, ResendInterval: 100 * time.Millisecond}
	if o.exchange != "" {
		ev.bus.EventsExchange = o.exchange
	}
	t.Cleanup(ev.stopBus)
	if o.bus {
		ev.startBus()
	}

	ev.auth = authtest.New(t)
	svcToken := ev.auth.ServiceToken(t, "render-farm")
	admToken := ev.auth.ServiceToken(t, "cms-admin", "content:admin")
	e, err := httpapi.NewHTTP(ev.app, httpapi.HTTPOptions{Auth: ev.auth.Authenticator(t), Logger: ev.log})
	if err != nil {
		t.Fatal(err)
	}
	ev.base = httpxtest.Start(t, e)
	spec, err := contentserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ev.c, err = content.NewClientWithResponses(ev.base+httpapi.BasePath, content.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ev.adminToken = ev.jwt(uuid.New(), ev.tenantID, "admin")
	ev.admin = authtest.Bearer(ev.adminToken)
	ev.user = authtest.Bearer(ev.jwt(ev.userID, ev.tenantID))
	ev.other = authtest.Bearer(ev.jwt(uuid.New(), uuid.New()))
	ev.svc = authtest.Bearer(svcToken)
	ev.svcAdm = authtest.Bearer(admToken)
	ev.anon = func(context.Context, *http.Request) error { return nil }
	return ev
}

// openPool opens a pool configured as the service configures its own (store.ConfigurePool).
func openPool(t testing.TB, dbURL string, tracer pgx.QueryTracer) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = tracer
	store.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// startBus starts the outbox forwarder and the preview-job consumer.
func (ev *env) startBus() {
	ev.t.Helper()
	if ev.running != nil {
		return
	}
	mb, err := busapi.Start(context.Background(), ev.bus, ev.pool, ev.app.HandlePreviewJob, nil, ev.log)
	if err != nil {
		ev.t.Fatal(err)
	}
	ev.running = mb
}

// stopBus stops them (a job in progress is cut and redelivered later).
func (ev *env) stopBus() {
	if ev.running == nil {
		return
	}
	if err := ev.running.Stop(); err != nil {
		ev.t.Logf("stopping the bus: %v", err)
	}
	ev.running = nil
}

// jwt mints a token of the test's issuer for the user of the tenant.
func (ev *env) jwt(sub, tenant uuid.UUID, roles ...string) string {
	return ev.auth.Token(ev.t, authtest.Subject(sub), authtest.Tenant(tenant), authtest.Roles(roles...))
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
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

// problemDetail is a problem's detail ("" when none).
func problemDetail(p *content.Problem) string {
	if p == nil || p.Detail == nil {
		return ""
	}
	return *p.Detail
}

func ptr[T any](v T) *T { return &v }

// --- fixtures, written through the API as an admin ---

func (ev *env) category(slug string, parent *uuid.UUID) uuid.UUID {
	ev.t.Helper()
	r, err := ev.c.CreateCategoryWithResponse(ctx(ev.t), nil, content.Category{Slug: &slug, Name: ptr("Category " + slug), ParentId: parent}, ev.admin)
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
	r, err := ev.c.CreateContainerWithResponse(ctx(ev.t), nil, body, ev.admin)
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
	r, err := ev.c.CreateProjectWithResponse(ctx(ev.t), nil, content.ProjectCreate{ContainerId: container, Name: "Variant " + aspect,
		OriginalWidth: 1920, OriginalHeight: 1080, ProjectDurationSec: 30, ChooseMode: "free", Aspect: &aspect}, ev.admin)
	want(ev.t, r, err, 201)
	return r.JSON201.Id
}

func (ev *env) scene(project uuid.UUID, key string) content.Scene {
	ev.t.Helper()
	r, err := ev.c.CreateSceneWithResponse(ctx(ev.t), project, nil, content.SceneCreate{Key: key, Title: "Scene " + key}, ev.admin)
	want(ev.t, r, err, 201)
	return *r.JSON201
}

// draftProject is a project of an unpublished container.
func (ev *env) draftProject(slug string) uuid.UUID {
	ev.t.Helper()
	_, ps := ev.container(containerSpec{slug: slug, aspects: []string{"16:9"}})
	return ps[0]
}

// publishedProject is a project of a published container.
func (ev *env) publishedProject(slug string) uuid.UUID {
	ev.t.Helper()
	_, ps := ev.container(containerSpec{slug: slug, publish: true, aspects: []string{"16:9"}})
	return ps[0]
}
