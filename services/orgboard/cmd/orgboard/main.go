// Command orgboard serves the organization board API (specs/openapi/orgboard.yaml).
//
//	orgboard serve          serve HTTP on HTTP_ADDR
//	orgboard migrate        apply the database migrations
//	orgboard token          mint a development JWT
//	orgboard seed --demo    demo organization, teams, seats and board (make run)
//	orgboard seed --bench   5,000 tasks across 20 teams (make bench-orgboard)
//	orgboard bench          the benchmark's load generator (a second process)
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/orgboard/internal/httpapi"
)

func main() {
	os.Exit(cli.Main("orgboard", config.Describe(Config{}),
		cli.Command{Name: "serve", Usage: "serve the HTTP API", Run: func(ctx context.Context, _ []string) error { return run(ctx) }},
		cli.Command{Name: "migrate", Usage: "apply the database migrations", Run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		cli.TokenCommand(func() (config.Common, error) { c, err := loadConfig(); return c.Common, err }, os.Stdout),
		cli.Command{Name: "seed", Usage: "load data: --demo (demo organization) or --bench (5,000 tasks, 20 teams)", Run: seed},
		cli.Command{Name: "bench", Usage: "load generator of make bench-orgboard (--url, --scenario board|move, --teams, --user)", Run: bench},
	))
}

// run serves the HTTP API until ctx ends (SIGTERM), then drains and closes.
func run(ctx context.Context) error {
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
	svc, err := wire(ctx, c, log)
	if err != nil {
		return err
	}
	defer svc.pool.Close()
	e, err := httpapi.NewHTTP(svc.app, httpapi.HTTPOptions{Auth: authn, Logger: log, Telemetry: tel, Ready: svc.pool.Ping, HTTP: c.HTTP})
	if err != nil {
		return err
	}
	// The key purger stops, and is waited for, before the pool closes.
	purgeCtx, stopPurge := context.WithCancel(ctx)
	var purger sync.WaitGroup
	defer func() { stopPurge(); purger.Wait() }()
	if err := withIdempotency(purgeCtx, &purger, e, svc.pool, c, log); err != nil {
		return err
	}
	return httpx.Serve(ctx, e, c.HTTPAddr, log, c.ShutdownDrain, httpx.WithMetrics(c.Common, tel))
}

func migrate(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	slog.SetDefault(telemetry.ServiceLogger("orgboard", c.LogLevel))
	return pgxdb.Migrate(ctx, c.DatabaseURL, migrationSets()...)
}

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", cli.ErrUsage, fmt.Sprintf(format, args...))
}
