package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/httpapi"
	"github.com/videotpl/platform/services/orgboard/internal/store"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/store/modelgw"
	"github.com/videotpl/platform/services/orgboard/migrations"
	"github.com/videotpl/platform/specs"
)

// clientVersion names this service to tool servers.
const clientVersion = "1.0.0"

// serviceName is the service's name in logs, traces and the names of its queues.
const serviceName = "orgboard"

func migrationSets() []pgxdb.Migrations { return migrations.Sets() }

// core is the application and the pool it was built on.
type core struct {
	pool *pgxpool.Pool
	app  *app.App
}

// service is the wired orgboard service: its HTTP server, and what stops with it.
type service struct {
	core
	http    *echo.Echo
	tel     *telemetry.Telemetry
	closers []func()
}

// close stops what wire started, the last started first: the key purger, the broker watch,
// the bus (consumer, then forwarder), the pool, telemetry.
func (s *service) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// wire builds every dependency of serve once: telemetry, the database pool and the app
// (buildCore), the bus (outbox forwarder and the consumer of busHandlers), the HTTP server and
// the Idempotency-Key purger. On an error it stops what it had started.
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
	s.core, err = buildCore(ctx, c, log)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.pool.Close)
	if err := tel.Registry.Register(pgxdb.NewPoolCollector(s.pool)); err != nil {
		return nil, err
	}

	metrics, err := bus.NewPrometheusMetrics(tel.Registry, bus.WithEventTypes(domain.RunJob))
	if err != nil {
		return nil, err
	}
	b, err := bus.Start(ctx, c.BusConfig(serviceName), s.pool, busHandlers(s.app), metrics, log)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() {
		if err := b.Stop(); err != nil {
			log.Warn("stopping the bus", slog.String("error", err.Error()))
		}
	})
	if c.AMQPURL != "" {
		// The broker's state on /metrics only: readiness does not depend on it (README).
		watchCtx, stopWatch := context.WithCancel(context.Background())
		s.closers = append(s.closers, stopWatch)
		if err := bus.WatchBroker(watchCtx, c.AMQPURL).Register(tel.Registry, "broker"); err != nil {
			return nil, err
		}
	}
	// Ready needs the database only: every request is served from it, and the events wait in
	// the outbox while the broker is away.
	s.http, err = httpapi.NewHTTP(s.app, httpapi.HTTPOptions{Auth: authn, Logger: log, Telemetry: tel, Ready: s.pool.Ping, HTTP: c.HTTP})
	if err != nil {
		return nil, err
	}
	// The key purger stops, and is waited for, before the pool closes.
	purgeCtx, stopPurge := context.WithCancel(ctx)
	var purger sync.WaitGroup
	s.closers = append(s.closers, func() { stopPurge(); purger.Wait() })
	if err := withIdempotency(purgeCtx, &purger, s.http, s.pool, c, log); err != nil {
		return nil, err
	}
	return s, nil
}

// buildCore builds the app once, on the configured database (migrating first when asked), and
// seeds the builtin agent profiles that are missing. Close the pool when done.
func buildCore(ctx context.Context, c Config, log *slog.Logger) (core, error) {
	// Configuration faults (no sealing keys in production, a bad allow-list, a bad default
	// tenant) stop the start before anything is touched.
	policy, err := egress.ParseAllowList(c.OutboundAllow)
	if err != nil {
		return core{}, err
	}
	keyring, err := seal.Load(c.SealKeys, c.Environment.IsDevelopment(), log)
	if err != nil {
		return core{}, fmt.Errorf("SEAL_KEYS: %w", err)
	}
	tenant, err := uuid.Parse(c.EventsDefaultTenant)
	if err != nil || tenant == uuid.Nil {
		return core{}, fmt.Errorf("EVENTS_DEFAULT_TENANT_ID must be a non-nil uuid: %q", c.EventsDefaultTenant)
	}
	if c.MigrateOnStart {
		if err := pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...); err != nil {
			return core{}, err
		}
	}
	pool, err := pgxdb.Open(ctx, c.DatabaseURL, pgxdb.MaxConns(int32(c.DBMaxConns)), pgxdb.BinaryUUIDs)
	if err != nil {
		return core{}, err
	}
	// Both outward clients dial through the policy, so a registered URL cannot be redirected or
	// resolved to an internal address.
	transport := policy.Transport()
	a := app.New(app.Deps{
		Store:  store.New(pool),
		Sealer: keyring,
		Models: modelgw.New(&http.Client{Transport: transport}, c.ModelTimeout),
		Tools:  mcp.New(transport, "videotpl-orgboard", clientVersion),
		URLs:   store.URLs(policy),
		// A run's claim outlives a call to the connection and one to its fallback.
		Limits: app.Limits{ToolCall: c.ToolCallTimeout, ToolTest: c.ToolTestTimeout, Discovery: c.ToolDiscoveryTime,
			RunClaim: 2*c.ModelTimeout + time.Minute, RunJob: c.RunJobPolicy()},
		Logger:          log,
		Clock:           time.Now,
		DefaultTenantID: tenant,
	})
	n, err := a.SeedBuiltinProfiles(ctx)
	if err != nil {
		pool.Close()
		return core{}, fmt.Errorf("seed builtin agent profiles: %w", err)
	}
	if n > 0 {
		log.Info("seeded builtin agent profiles", slog.Int("inserted", n))
	}
	return core{pool: pool, app: a}, nil
}

// withIdempotency makes the operations of the spec that declare the Idempotency-Key header
// answer retries from the keys stored in pool, and purges expired keys until ctx ends.
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
