package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
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
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/busapi"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/internal/store/storetest"
	"github.com/videotpl/platform/services/content/migrations"
)

// server is one content service on its own database, its own buckets on the test MinIO and
// its own exchange and queues on the test RabbitMQ, served on loopback. Tests that need no
// special configuration share one (sharedServer), each on its own users, tenant and slugs.
type server struct {
	tb    testing.TB // what the server lives as long as: a test, or the package's run
	pool  *pgxpool.Pool
	dbURL string
	base  string
	app   *app.App
	s3    *store.S3
	bus   bus.Config
	log   *slog.Logger
	// auth signs the callers' tokens.
	auth *authtest.Issuer
	// running is the outbox forwarder and preview-job consumer, once started.
	running *bus.Service
	// svcToken and admToken are service tokens without scopes and with content:admin.
	svcToken, admToken string
	shared             bool
	// tel holds the metrics the service registers, as its binary does: what /metrics serves.
	tel     *telemetry.Telemetry
	metrics *bus.PrometheusMetrics
}

// env is one test's view of a server: a client whose every response is validated against the
// spec (reporting to the test), and the credentials of the test's own callers.
type env struct {
	*server
	t testing.TB
	c *content.ClientWithResponses

	admin       content.RequestEditorFn // JWT with the platform-admin role, of the user's tenant
	tenantAdmin content.RequestEditorFn // JWT with a tenant's own admin role (no catalog writes)
	user        content.RequestEditorFn // JWT without roles
	other       content.RequestEditorFn // another user of another tenant
	svc         content.RequestEditorFn // service token without scopes
	svcAdm      content.RequestEditorFn // service token with content:admin
	anon        content.RequestEditorFn // no Authorization header
	// adminToken is the admin's bearer token (for requests built by hand).
	adminToken       string
	userID, tenantID uuid.UUID
	// suffix keeps the slugs of the fixtures unique on a shared server ("" on a server of
	// the test's own).
	suffix string
}

// envOptions tune newEnv.
type envOptions struct {
	config   func(*app.Config)
	model    svgpreview.ZoneSource
	exchange string
	tracer   pgx.QueryTracer
	bus      bool
	alone    bool
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

// withBus starts the outbox forwarder and the preview-job consumer with the service (the
// shared server runs them always).
func withBus() option { return func(o *envOptions) { o.bus = true } }

// alone gives the test a server of its own: for tests that count what the whole catalog
// holds, use literal slugs, or start and stop the bus themselves.
func alone() option { return func(o *envOptions) { o.alone = true } }

// newEnv is the test's view of the shared server, or of a server of its own when an option
// asks for something the shared one does not have.
func newEnv(t testing.TB, opts ...option) *env {
	t.Helper()
	var o envOptions
	for _, f := range opts {
		f(&o)
	}
	var srv *server
	if o.config == nil && o.model == nil && o.exchange == "" && o.tracer == nil && !o.alone {
		srv = sharedServer(t)
	} else {
		srv = newServer(t, o)
	}
	ev := &env{server: srv, t: t, userID: uuid.New(), tenantID: uuid.New()}
	if srv.shared {
		ev.suffix = "-" + ev.tenantID.String()[:8]
	}
	spec, err := contentserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ev.c, err = content.NewClientWithResponses(srv.base+httpapi.BasePath, content.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ev.adminToken = ev.jwt(uuid.New(), ev.tenantID, domain.PlatformAdminRole)
	ev.admin = authtest.Bearer(ev.adminToken)
	ev.tenantAdmin = authtest.Bearer(ev.jwt(uuid.New(), ev.tenantID, "admin"))
	ev.user = authtest.Bearer(ev.jwt(ev.userID, ev.tenantID))
	ev.other = authtest.Bearer(ev.jwt(uuid.New(), uuid.New()))
	ev.svc = authtest.Bearer(srv.svcToken)
	ev.svcAdm = authtest.Bearer(srv.admToken)
	ev.anon = func(context.Context, *http.Request) error { return nil }
	return ev
}

var shared struct {
	once sync.Once
	tb   *packageTB
	srv  *server
}

// sharedServer is the package's one server with the default configuration and the bus
// running, built by the first test that asks and closed when the package's tests end.
func sharedServer(t testing.TB) *server {
	t.Helper()
	shared.once.Do(func() {
		shared.tb = &packageTB{}
		func() {
			defer func() {
				if r := recover(); r != nil {
					if err, ok := r.(error); !ok || !errors.Is(err, errPackageTBFailed) {
						panic(r)
					}
				}
			}()
			shared.srv = newServer(shared.tb, envOptions{bus: true})
			shared.srv.shared = true
		}()
	})
	if shared.srv == nil {
		t.Fatalf("the shared server did not start: %s", strings.Join(shared.tb.errors, "; "))
	}
	return shared.srv
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.tb != nil {
		shared.tb.cleanup()
	}
	os.Exit(code)
}

// packageTB is the testing.TB the shared server lives on: cleanups run when the package's
// tests end; a failure while building the server stops the build (sharedServer reports it
// to the test that asked).
type packageTB struct {
	testing.TB // nil: only the methods below are called by the fixtures
	mu         sync.Mutex
	cleanups   []func()
	errors     []string
}

var errPackageTBFailed = errors.New("the shared server failed")

func (p *packageTB) Helper() {}

func (p *packageTB) Cleanup(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cleanups = append(p.cleanups, f)
}

func (p *packageTB) Logf(format string, args ...any) { log.Printf(format, args...) }

func (p *packageTB) Errorf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errors = append(p.errors, fmt.Sprintf(format, args...))
}

func (p *packageTB) Fatalf(format string, args ...any) {
	p.Errorf(format, args...)
	panic(errPackageTBFailed)
}

func (p *packageTB) Fatal(args ...any) { p.Fatalf("%s", fmt.Sprint(args...)) }

func (p *packageTB) cleanup() {
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
}

// newServer starts a content service as o asks, living as long as t.
func newServer(t testing.TB, o envOptions) *server {
	t.Helper()
	srv := &server{tb: t, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if testing.Verbose() {
		srv.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	_, srv.dbURL = pgtest.NewDB(t, migrations.Sets()...)
	srv.pool = openPool(t, srv.dbURL, o.tracer)

	var err error
	if srv.tel, err = telemetry.Setup(context.Background(), "content", telemetry.Config{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.tel.Shutdown(context.Background()) })
	if err := srv.tel.Registry.Register(pgxdb.NewPoolCollector(srv.pool)); err != nil {
		t.Fatal(err)
	}
	if srv.metrics, err = bus.NewPrometheusMetrics(srv.tel.Registry, bus.WithEventTypes(domain.PreviewJob)); err != nil {
		t.Fatal(err)
	}
	if srv.s3, err = store.NewS3(storetest.S3Config(t)); err != nil {
		t.Fatal(err)
	}
	cfg := app.Config{TemplatesBucket: storetest.Bucket(t, srv.s3, "tpl"), MediaBucket: storetest.Bucket(t, srv.s3, "media"),
		AepMaxSingleUpload: 512 << 20, AepChunkSize: 64 << 20, PartURLTTL: 24 * time.Hour,
		AepUploadMaxAge: 7 * 24 * time.Hour, PreviewTimeout: 30 * time.Minute,
		DefaultTenantID: uuid.MustParse("00000000-0000-0000-0000-000000000001")}
	if o.config != nil {
		o.config(&cfg)
	}
	for _, b := range []string{cfg.TemplatesBucket, cfg.MediaBucket} {
		if err := srv.s3.EnsureBucket(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	srv.app = app.New(store.New(srv.pool), srv.s3, svgpreview.New(svgpreview.Options{}, o.model, srv.log), cfg, srv.log)

	srv.bus = bustest.Config(t) // its own queues and exchanges, removed when the test ends
	srv.bus.ProgressExchange = ""
	srv.bus.Retry = bus.RetryConfig{MaxRetries: 2, InitialInterval: 20 * time.Millisecond, MaxInterval: 100 * time.Millisecond}
	srv.bus.Outbox = bus.OutboxConfig{PollInterval: 20 * time.Millisecond, ResendInterval: 100 * time.Millisecond}
	if o.exchange != "" {
		srv.bus.EventsExchange = o.exchange
	}
	t.Cleanup(srv.stopBus)
	if o.bus {
		srv.startBus()
		// The broker's state on /metrics, as the binary watches it.
		watchCtx, stopWatch := context.WithCancel(context.Background())
		t.Cleanup(stopWatch)
		if err := bus.WatchBroker(watchCtx, srv.bus.AMQPURL).Register(srv.tel.Registry, "broker"); err != nil {
			t.Fatal(err)
		}
	}

	srv.auth = authtest.New(t)
	srv.svcToken = srv.auth.ServiceToken(t, "render-farm")
	srv.admToken = srv.auth.ServiceToken(t, "cms-admin", domain.AdminScope)
	e, err := httpapi.NewHTTP(srv.app, httpapi.HTTPOptions{Auth: srv.auth.Authenticator(t), Logger: srv.log, Telemetry: srv.tel})
	if err != nil {
		t.Fatal(err)
	}
	srv.base = httpxtest.Start(t, e)
	return srv
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
func (srv *server) startBus() {
	srv.tb.Helper()
	if srv.running != nil {
		return
	}
	mb, err := busapi.Start(context.Background(), srv.bus, srv.pool, srv.app.HandlePreviewJob, srv.metrics, srv.log)
	if err != nil {
		srv.tb.Fatal(err)
	}
	srv.running = mb
}

// stopBus stops them (a job in progress is cut and redelivered later).
func (srv *server) stopBus() {
	if srv.running == nil {
		return
	}
	if err := srv.running.Stop(); err != nil {
		srv.tb.Logf("stopping the bus: %v", err)
	}
	srv.running = nil
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
	slug += ev.suffix
	r, err := ev.c.CreateCategoryWithResponse(ctx(ev.t), nil, content.Category{Slug: &slug, Name: ptr("Category " + slug), ParentId: parent}, ev.admin)
	want(ev.t, r, err, 201)
	return *r.JSON201.Id
}

// tag inserts a tag (the API has no tag write).
func (ev *env) tag(slug string) uuid.UUID {
	ev.t.Helper()
	slug += ev.suffix
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
	s.slug += ev.suffix
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
