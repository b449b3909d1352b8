// Command orgboard serves the organization board API (specs/openapi/orgboard.yaml).
//
//	orgboard serve          serve HTTP on HTTP_ADDR
//	orgboard migrate        apply the database migrations
//	orgboard token          mint a development JWT
//	orgboard seed --demo    demo organization, teams, seats and board (make run)
//	orgboard seed --bench   5,000 tasks across 20 teams (make bench-orgboard)
//	orgboard bench          the benchmark's load generator (a second process)
//	orgboard bench-floor    the benchmark's floor: a bare Go server running a move's SQL
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
)

func main() {
	os.Exit(cli.Main("orgboard", config.Describe(Config{}),
		cli.Command{Name: "serve", Usage: "serve the HTTP API", Run: func(ctx context.Context, _ []string) error { return run(ctx) }},
		cli.Command{Name: "migrate", Usage: "apply the database migrations", Run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		cli.TokenCommand(func() (config.Common, error) { c, err := loadConfig(); return c.Common, err }, os.Stdout),
		cli.Command{Name: "seed", Usage: "load data: --demo (demo organization) or --bench (5,000 tasks, 20 teams)", Run: seed},
		cli.Command{Name: "bench", Usage: "load generator of make bench-orgboard (--url, --scenario board|move, --teams, --user)", Run: bench},
		cli.Command{Name: "bench-floor", Usage: "floor of make bench-orgboard's move: a bare net/http and pgx server running its SQL (--addr, --user)", Run: benchFloor},
	))
}

// run serves the HTTP API until ctx ends (SIGTERM), then drains and stops what wire started.
func run(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	log := telemetry.ServiceLogger(serviceName, c.LogLevel)
	slog.SetDefault(log)
	s, err := wire(ctx, c, log)
	if err != nil {
		return err
	}
	defer s.close()
	return httpx.Serve(ctx, s.http, c.HTTPAddr, log, c.ShutdownDrain, httpx.WithMetrics(c.Common, s.tel))
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
