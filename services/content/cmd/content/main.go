// Command content serves the content API (specs/openapi/content.yaml): the template catalog,
// projects, scenes and elements, preset stories, AEP uploads, fonts and music, SVG colour
// previews, favorites, the CMS and the render servers; it also runs the SVG-preview jobs.
//
//	content serve            serve HTTP on HTTP_ADDR and run the preview jobs
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

	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/content/migrations"
)

func main() {
	os.Exit(cli.Main(serviceName, config.Describe(Config{}),
		cli.Command{Name: "serve", Usage: "serve the HTTP API and run the SVG-preview jobs", Run: func(ctx context.Context, _ []string) error { return run(ctx) }},
		cli.Command{Name: "migrate", Usage: "apply the database migrations", Run: migrateCommand},
		cli.TokenCommand(func() (config.Common, error) { c, err := loadConfig(); return c.Common, err }, os.Stdout),
		cli.Command{Name: "seed", Usage: "load data: --demo (demo catalog) or --bench N (N templates x 3 projects)", Run: seedCommand},
		cli.Command{Name: "bench", Usage: "load generator of make bench-content (see scripts/bench-content.sh)", Run: benchCommand},
	))
}

// run serves the API and runs the preview jobs until ctx ends (SIGINT, SIGTERM), then drains
// the requests in flight for SHUTDOWN_DRAIN and stops the rest.
func run(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	log := telemetry.ServiceLogger(serviceName, c.LogLevel)
	slog.SetDefault(log)
	// Most of the heap is a request's short-lived garbage (a /full aggregate is ~0.75 MB): a
	// quarter of the CPU of /full went to collecting it at the default of 100. Upload buffers
	// are pooled, so the AEP upload's peak stays the same.
	cli.DefaultGCPercent(400)
	s, err := wire(ctx, c, log)
	if err != nil {
		return err
	}
	defer s.close()
	return httpx.Serve(ctx, s.http, c.HTTPAddr, log, c.ShutdownDrain, httpx.WithMetrics(c.Common, s.tel))
}

// migrateCommand applies the migrations of the content database.
func migrateCommand(ctx context.Context, _ []string) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	slog.SetDefault(telemetry.ServiceLogger(serviceName, c.LogLevel))
	return pgxdb.Migrate(ctx, c.DatabaseURL, migrations.Sets()...)
}
