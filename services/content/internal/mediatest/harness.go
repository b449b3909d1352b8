package mediatest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/internal/svgpreview"
	"github.com/videotpl/platform/services/content/migrations"
)

// Migrations are the sets the service applies: its own and the bus's outbox and inbox.
func Migrations() []pgxdb.Migrations {
	return []pgxdb.Migrations{{Name: "content", FS: migrations.FS}, bus.Migrations()}
}

// Options tune a Harness.
type Options struct {
	// Media overrides parts of the pipeline's configuration (buckets are always the test's).
	Media app.MediaConfig
	// Model is the vision model of the generator (nil: built-in detector only).
	Model svgpreview.ZoneSource
	// EventsExchange is the topic exchange (default one unique to the test; the seed's
	// "events" is shared and never removed).
	EventsExchange string
	// NoBus leaves the forwarder and consumer stopped (StartBus starts them).
	NoBus bool
}

// Harness is the content API with its media pipeline on a fresh database, unique buckets on
// the test MinIO and unique exchange and queues on the test RabbitMQ, served on loopback.
type Harness struct {
	T      testing.TB
	Pool   *pgxpool.Pool
	DBURL  string
	S3     *store.S3
	Media  *app.Media
	Bus    bus.Config
	URL    string
	Client *content.ClientWithResponses
	// Admin and User are callers (JWT with and without the admin role); TenantID is theirs.
	Admin, User content.RequestEditorFn
	TenantID    uuid.UUID
	// AdminToken is the admin's bearer token (for requests built by hand).
	AdminToken string
	// Auth signs the callers' tokens; its Env configures a content process to accept them.
	Auth *authtest.Issuer
	Log  *slog.Logger

	running *store.MediaBus
}

// Start builds and serves a harness; everything is removed when the test ends.
func Start(t testing.TB, o Options) *Harness {
	t.Helper()
	h := &Harness{T: t, TenantID: uuid.New(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if testing.Verbose() {
		h.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	h.Pool, h.DBURL = pgtest.NewDB(t, Migrations()...)
	var err error
	if h.S3, err = store.NewS3(S3Config(t)); err != nil {
		t.Fatal(err)
	}
	cfg := o.Media
	cfg.TemplatesBucket, cfg.MediaBucket = Bucket(t, h.S3, "tpl"), Bucket(t, h.S3, "media")
	for _, b := range []string{cfg.TemplatesBucket, cfg.MediaBucket} {
		if err := h.S3.EnsureBucket(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.DefaultTenantID == uuid.Nil {
		cfg.DefaultTenantID = uuid.MustParse("00000000-0000-0000-0000-000000000001")
	}
	a := app.New(store.New(h.Pool))
	h.Media = app.NewMedia(a, store.NewMedia(store.New(h.Pool)), h.S3, svgpreview.New(svgpreview.Options{}, o.Model, h.Log), cfg, h.Log)

	h.Bus = bustest.Config(t) // its queues and exchanges are removed after the bus stopped
	h.Bus.Retry = bus.RetryConfig{MaxRetries: 2, InitialInterval: 20 * time.Millisecond, MaxInterval: 100 * time.Millisecond}
	h.Bus.Outbox.ResendInterval = 100 * time.Millisecond
	if o.EventsExchange != "" {
		h.Bus.EventsExchange = o.EventsExchange
	}
	t.Cleanup(h.StopBus)
	if !o.NoBus {
		h.StartBus()
	}

	h.Auth = authtest.New(t)
	e, err := httpapi.NewHTTP(httpapi.New(a, h.Media), httpapi.HTTPOptions{Auth: h.Auth.Authenticator(t), Logger: h.Log,
		OperationBodyLimits: httpapi.MediaBodyLimits(h.Media)})
	if err != nil {
		t.Fatal(err)
	}
	h.URL = httpxtest.Start(t, e)
	spec, err := contentserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if h.Client, err = content.NewClientWithResponses(h.URL+httpapi.BasePath, content.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil))); err != nil {
		t.Fatal(err)
	}
	h.AdminToken = h.Auth.Token(t, authtest.Tenant(h.TenantID), authtest.Roles("admin"))
	h.Admin = authtest.Bearer(h.AdminToken)
	h.User = authtest.Bearer(h.Auth.Token(t, authtest.Tenant(h.TenantID)))
	return h
}

// StartBus starts the outbox forwarder and the preview-job consumer.
func (h *Harness) StartBus() {
	h.T.Helper()
	if h.running != nil {
		return
	}
	mb, err := store.StartMediaBus(context.Background(), h.Bus, h.Pool, h.Media.HandlePreviewJob, nil, h.Log)
	if err != nil {
		h.T.Fatal(err)
	}
	h.running = mb
}

// StopBus stops them (a job in progress is cut and redelivered later).
func (h *Harness) StopBus() {
	if h.running == nil {
		return
	}
	if err := h.running.Stop(); err != nil {
		h.T.Logf("stopping the media bus: %v", err)
	}
	h.running = nil
}

// Ctx is a context bounded to the test.
func Ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// Response is what every generated response offers.
type Response interface {
	StatusCode() int
}

// Want fails the test unless the request succeeded with status; body is shown otherwise.
func Want(t testing.TB, r Response, body []byte, err error, status int) {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	if r.StatusCode() != status {
		t.Fatalf("status %d, want %d: %s", r.StatusCode(), status, body)
	}
}

// Project creates a container (published when asked) with one project and returns the
// project's id.
func (h *Harness) Project(slug string, publish bool) uuid.UUID {
	h.T.Helper()
	ctx := Ctx(h.T)
	c, err := h.Client.CreateContainerWithResponse(ctx, content.ContainerCreate{Slug: slug, Name: slug, PrimaryMode: "video"}, h.Admin)
	Want(h.T, c, bodyOf(c), err, 201)
	p, err := h.Client.CreateProjectWithResponse(ctx, content.ProjectCreate{ContainerId: c.JSON201.Id, Name: slug + " 16:9",
		OriginalWidth: 1920, OriginalHeight: 1080, ProjectDurationSec: 30, ChooseMode: "free"}, h.Admin)
	Want(h.T, p, bodyOf(p), err, 201)
	if publish {
		r, err := h.Client.PublishContainerWithResponse(ctx, c.JSON201.Id, h.Admin)
		Want(h.T, r, r.Body, err, 204)
	}
	return p.JSON201.Id
}

// Scene creates a scene in a project.
func (h *Harness) Scene(project uuid.UUID, key string) uuid.UUID {
	h.T.Helper()
	r, err := h.Client.CreateSceneWithResponse(Ctx(h.T), project, content.SceneCreate{Key: key, Title: key}, h.Admin)
	Want(h.T, r, bodyOf(r), err, 201)
	return r.JSON201.Id
}

func bodyOf(r interface{ StatusCode() int }) []byte {
	switch v := r.(type) {
	case *content.CreateContainerResponse:
		return v.Body
	case *content.CreateProjectResponse:
		return v.Body
	case *content.CreateSceneResponse:
		return v.Body
	}
	return nil
}
