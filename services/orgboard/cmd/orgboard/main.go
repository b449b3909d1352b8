// Command orgboard serves the organization board API (specs/openapi/orgboard.yaml).
//
//	orgboard serve          serve HTTP on HTTP_ADDR
//	orgboard migrate        apply the database migrations
//	orgboard token          mint a development JWT
//	orgboard seed --demo    demo organization, teams, seats and board (make run)
//	orgboard seed --bench   5,000 work items across 20 teams (make bench-orgboard)
//	orgboard bench          the benchmark's load generator (a second process)
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/httpapi"
	"github.com/videotpl/platform/services/orgboard/migrations"
)

// Config is the service's configuration, from the environment only.
type Config struct {
	config.Common
	config.Sealing
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:":8082" desc:"address the HTTP server listens on"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/orgboard?sslmode=disable" desc:"PostgreSQL connection URL of the orgboard database" secret:"true"`
	// AgentsConfig holds the variables of the agents part (agents.go).
	AgentsConfig
}

func loadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	return c, err
}

func main() {
	os.Exit(cli.Main("orgboard", config.Describe(Config{}),
		cli.Command{Name: "serve", Usage: "serve the HTTP API", Run: func(ctx context.Context, _ []string) error { return serve(ctx) }},
		cli.Command{Name: "migrate", Usage: "apply the database migrations", Run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		cli.TokenCommand(func() (config.Common, error) { c, err := loadConfig(); return c.Common, err }, os.Stdout),
		cli.Command{Name: "seed", Usage: "load data: --demo (demo organization) or --bench (5,000 work items, 20 teams)", Run: seed},
		cli.Command{Name: "bench", Usage: "load generator of make bench-orgboard (--url, --scenario board|move, --teams, --user)", Run: bench},
	))
}

func migrationSets() []pgxdb.Migrations {
	return []pgxdb.Migrations{{Name: "orgboard", FS: migrations.FS}}
}

func migrate(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	slog.SetDefault(telemetry.ServiceLogger("orgboard", c.LogLevel))
	return pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...)
}

// open builds the application on the configured database (migrating first when asked).
func open(ctx context.Context, c Config, log *slog.Logger) (*app.App, func(), error) {
	// Configuration faults (no sealing keys in production, a bad allow-list) stop the start
	// before anything is touched.
	deps, err := agentDeps(ctx, c, log)
	if err != nil {
		return nil, nil, err
	}
	if c.MigrateOnStart {
		if err := pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...); err != nil {
			return nil, nil, err
		}
	}
	pool, err := pgxdb.Open(ctx, c.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	a := app.New(pool, app.Options{Logger: log, Agents: deps})
	if err := seedBuiltins(ctx, a, log); err != nil {
		pool.Close()
		return nil, nil, err
	}
	return a, pool.Close, nil
}

func serve(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	log := telemetry.ServiceLogger("orgboard", c.LogLevel)
	slog.SetDefault(log)
	tel, err := telemetry.Setup(ctx, "orgboard", telemetry.Config{OTLPEndpoint: c.OTLPEndpoint})
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
	a, closeDB, err := open(ctx, c, log)
	if err != nil {
		return err
	}
	defer closeDB()
	e, err := httpapi.NewHTTP(a, httpapi.HTTPOptions{Auth: authn, Logger: log, Telemetry: tel})
	if err != nil {
		return err
	}
	return httpx.Serve(ctx, e, c.HTTPAddr, log, c.ShutdownDrain)
}

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", cli.ErrUsage, fmt.Sprintf(format, args...))
}
