// Command renderevents consumes the render and identity events of seed 001 and serves
// their read models (specs/openapi/renderevents.yaml): render jobs with live progress,
// snapshots, tenants and users, usage, refunds due and signed webhooks.
//
//	renderevents serve      consumers, progress relay, webhook dispatcher and HTTP API
//	renderevents migrate    apply the database migrations
//	renderevents token      mint a development JWT
//	renderevents simulate   publish a realistic stream of events (demos, tests)
//	renderevents bench      the load generator of make bench-renderevents
//	renderevents bench-reads  the read requests of make bench-growth, with their plans
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
)

func main() {
	os.Exit(cli.Main(Name, config.Describe(Config{}),
		cli.Command{Name: "serve", Usage: "run the consumers, the progress relay, the webhook dispatcher and the HTTP API",
			Run: func(ctx context.Context, _ []string) error { return run(ctx) }},
		cli.Command{Name: "migrate", Usage: "apply the database migrations", Run: func(ctx context.Context, _ []string) error { return migrate(ctx) }},
		cli.TokenCommand(func() (config.Common, error) { c, err := loadConfig(); return c.Common, err }, os.Stdout),
		cli.Command{Name: "simulate", Usage: "publish a realistic event stream (--jobs, --tenants, --ticks, --duplicates, --reorder, ...)", Run: simulate},
		cli.Command{Name: "bench", Usage: "load generator of make bench-renderevents (see scripts/bench-renderevents.sh)", Run: bench},
		cli.Command{Name: "bench-webhooks", Usage: "load generator of make bench-webhooks (see scripts/bench-webhooks.sh)", Run: benchWebhooks},
		cli.Command{Name: "bench-reads", Usage: "read requests and their plans for make bench-growth (see scripts/bench-growth-renderevents.sh)", Run: benchReads},
	))
}

func migrate(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	slog.SetDefault(telemetry.ServiceLogger(Name, c.LogLevel))
	return pgxdb.Migrate(ctx, c.DatabaseURL, Migrations()...)
}

// run serves until ctx ends: the consumers, the progress relay, the webhook dispatcher and
// the HTTP API.
func run(ctx context.Context) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	log := telemetry.ServiceLogger(Name, c.LogLevel)
	slog.SetDefault(log)
	// The heap is small and short-lived (event batches): trade a little memory for less GC.
	cli.DefaultGCPercent(400)
	tel, err := telemetry.Setup(ctx, Name, telemetry.ConfigOf(c.Common))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
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
	svc, err := NewService(c, Deps{Pool: pool, Auth: authn, Logger: log, Telemetry: tel})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", c.HTTPAddr, err)
	}
	return svc.Run(ctx, ln)
}
