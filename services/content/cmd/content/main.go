// Command content serves the content API (specs/openapi/content.yaml): the template catalog,
// projects, scenes and elements, presets, the media library, favorites and the CMS.
//
//	content serve            serve HTTP on HTTP_ADDR
//	content migrate          apply the database migrations
//	content token            mint a development JWT
//	content seed --demo      a demo catalog (make run; idempotent)
//	content seed --bench N   N synthetic templates x 3 projects + one 40 x 25 project
//	content bench ...        the load generator of make bench-content
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/migrations"
)

// Config is the service's configuration, from the environment only.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:":8081" desc:"address the HTTP server listens on"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/content?sslmode=disable" desc:"PostgreSQL connection URL of the content database" secret:"true"`
	DBMaxConns  int32  `env:"DB_MAX_CONNS" envDefault:"16" desc:"largest number of database connections of the pool"`
	// MediaConfig holds the variables of the media pipeline (media.go).
	MediaConfig
}

func loadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	return c, err
}

func main() {
	os.Exit(cli.Main("content", config.Describe(Config{}),
		cli.Command{Name: "serve", Usage: "serve the HTTP API", Run: func(ctx context.Context, _ []string) error { return serve(ctx) }},
		cli.Command{Name: "migrate", Usage: "apply the database migrations", Run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		cli.TokenCommand(func() (config.Common, error) { c, err := loadConfig(); return c.Common, err }, os.Stdout),
		cli.Command{Name: "seed", Usage: "load data: --demo (demo catalog) or --bench N (N templates x 3 projects)", Run: seedCommand},
		cli.Command{Name: "bench", Usage: "load generator of make bench-content (see scripts/bench-content.sh)", Run: benchCommand},
	))
}

func migrationSets() []pgxdb.Migrations {
	return append([]pgxdb.Migrations{{Name: "content", FS: migrations.FS}}, mediaMigrationSets()...)
}

func migrate(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	slog.SetDefault(telemetry.ServiceLogger("content", c.LogLevel))
	return pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...)
}

// openPool connects to the configured database, migrating it first when asked.
func openPool(ctx context.Context, c Config) (*pgxpool.Pool, error) {
	if c.MigrateOnStart {
		if err := pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...); err != nil {
			return nil, err
		}
	}
	cfg, err := pgxpool.ParseConfig(c.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if c.DBMaxConns > 0 {
		cfg.MaxConns = c.DBMaxConns
	}
	store.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

func serve(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	log := telemetry.ServiceLogger("content", c.LogLevel)
	slog.SetDefault(log)
	tel, err := telemetry.Setup(ctx, "content", telemetry.Config{OTLPEndpoint: c.OTLPEndpoint})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.ShutdownDrain)
		defer cancel()
		_ = tel.Shutdown(sctx)
	}()
	authn, err := auth.FromConfig(c.Common)
	if err != nil {
		return err
	}
	pool, err := openPool(ctx, c)
	if err != nil {
		return err
	}
	defer pool.Close()
	media, err := newMedia(ctx, mediaDeps{Config: c.MediaConfig, Common: c.Common, Pool: pool, Logger: log, Telemetry: tel})
	if err != nil {
		return err
	}
	defer media.Close()
	e, err := httpapi.NewHTTP(media.App, httpapi.HTTPOptions{Auth: authn, Logger: log,
		Telemetry: tel, Ready: media.ready(pool)})
	if err != nil {
		return err
	}
	return httpx.Serve(ctx, e, c.HTTPAddr, log, c.ShutdownDrain)
}
