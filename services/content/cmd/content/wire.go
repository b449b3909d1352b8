package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/busapi"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/internal/store/vision"
	"github.com/videotpl/platform/services/content/migrations"
	"github.com/videotpl/platform/specs"
)

// service is the wired content service: its HTTP server, and what stops with it.
type service struct {
	http    *echo.Echo
	tel     *telemetry.Telemetry
	closers []func()
}

// close stops what wire started, the last started first.
func (s *service) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// wire builds every dependency once: telemetry, the database pool, object storage, the app,
// the bus (outbox forwarder and preview-job consumer), the sweeper and the HTTP server. On an
// error it stops what it had started.
func wire(ctx context.Context, c Config, log *slog.Logger) (_ *service, err error) {
	s := &service{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	tel, err := telemetry.Setup(ctx, serviceName, telemetry.ConfigOf(c.Common))
	if err != nil {
		return nil, err
	}
	s.tel = tel
	s.closers = append(s.closers, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.ShutdownDrain)
		defer cancel()
		_ = tel.Shutdown(sctx)
	})
	authn, err := auth.FromConfig(c.Common)
	if err != nil {
		return nil, err
	}
	pool, err := openPool(ctx, c)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, pool.Close)
	if err := tel.Registry.Register(pgxdb.NewPoolCollector(pool)); err != nil {
		return nil, err
	}
	objects, err := openObjects(ctx, c, log)
	if err != nil {
		return nil, err
	}
	a, err := newApp(c, pool, objects, log)
	if err != nil {
		return nil, err
	}

	// The preview command is no event of the catalogue: its name is a label of its own.
	metrics, err := bus.NewPrometheusMetrics(tel.Registry, bus.WithEventTypes(domain.PreviewJob))
	if err != nil {
		return nil, err
	}
	b, err := busapi.Start(ctx, c.BusConfig(serviceName), pool,
		a.HandlePreviewJob, metrics, log)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() {
		if err := b.Stop(); err != nil {
			log.Warn("stopping the bus", slog.String("error", err.Error()))
		}
	})

	sweepCtx, stopSweep := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { a.RunSweeper(sweepCtx, c.MediaSweepInterval) })
	s.closers = append(s.closers, func() { stopSweep(); wg.Wait() })

	if c.AMQPURL != "" {
		// The broker's state on /metrics only: readiness does not depend on it (README).
		watchCtx, stopWatch := context.WithCancel(context.Background())
		s.closers = append(s.closers, stopWatch)
		if err := bus.WatchBroker(watchCtx, c.AMQPURL).Register(tel.Registry, "broker"); err != nil {
			return nil, err
		}
	}
	// Ready needs the database only: when the object storage blips, media operations answer
	// 503 (store.S3) while every pod stays in the Service and the catalog keeps serving.
	s.http, err = httpapi.NewHTTP(a, httpapi.HTTPOptions{Auth: authn, Logger: log, Telemetry: tel, Ready: pool.Ping, HTTP: c.HTTP})
	if err != nil {
		return nil, err
	}
	if err := withIdempotency(sweepCtx, &wg, s.http, pool, c, log); err != nil {
		return nil, err
	}
	return s, nil
}

// withIdempotency makes the operations of the spec that declare the Idempotency-Key header
// answer retries from the keys stored in pool, and purges expired keys (in wg) until ctx ends.
func withIdempotency(ctx context.Context, wg *sync.WaitGroup, e *echo.Echo, pool *pgxpool.Pool, c Config, log *slog.Logger) error {
	doc, err := specs.OpenAPI(serviceName)
	if err != nil {
		return err
	}
	keys := idempotency.New(pool, c.KeyOptions(log))
	if err := keys.Apply(e, doc); err != nil {
		return err
	}
	wg.Go(func() { keys.RunPurger(ctx, c.IdempotencyPurgeInterval) })
	return nil
}

// openPool connects to the configured database, migrating it first when asked.
func openPool(ctx context.Context, c Config) (*pgxpool.Pool, error) {
	if c.MigrateOnStart {
		if err := pgxdb.Migrate(ctx, c.DatabaseURL, migrations.Sets()...); err != nil {
			return nil, err
		}
	}
	return pgxdb.Open(ctx, c.DatabaseURL, pgxdb.MaxConns(int32(c.DBMaxConns)), store.ConfigurePool)
}

// openObjects connects to the object storage and creates the buckets that are missing.
func openObjects(ctx context.Context, c Config, log *slog.Logger) (*store.S3, error) {
	objects, err := store.NewS3(store.S3Config{Endpoint: c.S3Endpoint, Region: c.S3Region, AccessKey: c.S3AccessKey,
		SecretKey: c.S3SecretKey, PublicURL: c.S3PublicURL, PartSize: c.S3PartSize, Concurrency: c.S3Concurrency})
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, b := range []string{c.S3BucketTemplates, c.S3BucketMedia} {
		if err := objects.EnsureBucket(sctx, b); err != nil {
			return nil, err
		}
	}
	// A safety net beside the sweeper where the server supports it (AWS S3 does; MinIO refuses
	// the rule and expires stale uploads by its own api.stale_uploads_expiry).
	days := int32(max(1, c.AepUploadMaxAge/(24*time.Hour))) //nolint:gosec // small
	if err := objects.EnsureAbortRule(sctx, c.S3BucketTemplates, "projects/", days); err != nil {
		log.Info("the object storage refused the lifecycle rule that aborts incomplete uploads; the sweeper aborts them",
			slog.String("error", err.Error()))
	}
	return objects, nil
}

// newApp builds the application on the database and the object storage, with the built-in
// colour-zone detector and, when configured, the vision model before it.
func newApp(c Config, pool *pgxpool.Pool, objects *store.S3, log *slog.Logger) (*app.App, error) {
	tenant, err := uuid.Parse(c.EventsDefaultTenant)
	if err != nil || tenant == uuid.Nil {
		return nil, fmt.Errorf("EVENTS_DEFAULT_TENANT_ID must be a non-nil uuid: %q", c.EventsDefaultTenant)
	}
	var model svgpreview.ZoneSource
	if c.SvgAIBaseURL != "" && c.SvgAIModel != "" {
		model = &vision.Model{BaseURL: c.SvgAIBaseURL, APIKey: c.SvgAIAPIKey, Model: c.SvgAIModel, Timeout: c.SvgAITimeout}
	}
	return app.New(store.New(pool), objects, svgpreview.New(svgpreview.Options{}, model, log),
		app.Config{TemplatesBucket: c.S3BucketTemplates, MediaBucket: c.S3BucketMedia,
			AepMaxSingleUpload: c.AepMaxSingleUpload, AepChunkSize: c.AepChunkSize, PartURLTTL: c.AepPartURLTTL,
			AepUploadMaxAge: c.AepUploadMaxAge, PreviewTimeout: c.SvgPreviewTimeout, DefaultTenantID: tenant}, log), nil
}
