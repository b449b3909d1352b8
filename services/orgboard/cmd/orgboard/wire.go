package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/store"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/store/modelgw"
	"github.com/videotpl/platform/services/orgboard/migrations"
	"github.com/videotpl/platform/specs"
)

// clientVersion names this service to tool servers.
const clientVersion = "1.0.0"

func migrationSets() []pgxdb.Migrations {
	return []pgxdb.Migrations{{Name: "orgboard", FS: migrations.FS}, idempotency.Migrations()}
}

// service is the application and what it was built on.
type service struct {
	pool *pgxpool.Pool
	app  *app.App
}

// wire builds the dependencies once, on the configured database (migrating first when asked),
// and seeds the builtin agent profiles that are missing. Close the pool when done.
func wire(ctx context.Context, c Config, log *slog.Logger) (service, error) {
	// Configuration faults (no sealing keys in production, a bad allow-list) stop the start
	// before anything is touched.
	policy, err := egress.ParseAllowList(c.OutboundAllow)
	if err != nil {
		return service{}, err
	}
	keyring, err := seal.Load(c.SealKeys, c.Environment.IsDevelopment(), log)
	if err != nil {
		return service{}, fmt.Errorf("SEAL_KEYS: %w", err)
	}
	if c.MigrateOnStart {
		if err := pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...); err != nil {
			return service{}, err
		}
	}
	pool, err := pgxdb.Open(ctx, c.DatabaseURL)
	if err != nil {
		return service{}, err
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
			RunClaim: 2*c.ModelTimeout + time.Minute},
		Logger: log,
		Clock:  time.Now,
	})
	n, err := a.SeedBuiltinProfiles(ctx)
	if err != nil {
		pool.Close()
		return service{}, fmt.Errorf("seed builtin agent profiles: %w", err)
	}
	if n > 0 {
		log.Info("seeded builtin agent profiles", slog.Int("inserted", n))
	}
	return service{pool: pool, app: a}, nil
}

// withIdempotency makes the operations of the spec that declare the Idempotency-Key header
// answer retries from the keys stored in pool, and purges expired keys until ctx ends.
func withIdempotency(ctx context.Context, wg *sync.WaitGroup, e *echo.Echo, pool *pgxpool.Pool, c Config, log *slog.Logger) error {
	doc, err := specs.OpenAPI("orgboard")
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
