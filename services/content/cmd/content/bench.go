package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/services/content/cmd/content/bench"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/store"
)

// benchReport is one scenario's figures: the service over HTTP beside pgbench on its SQL.
type benchReport struct {
	Scenario string       `json:"scenario"`
	Service  bench.Result `json:"service"`
	PGBench  bench.Result `json:"pgbench"`
	Ratio    float64      `json:"ratio"`
	// Plans are the request's statements under EXPLAIN (ANALYZE, BUFFERS), with --explain.
	Plans []bench.Plan `json:"plans,omitempty"`
}

// benchCommand loads one scenario of the running service (a second process on loopback) and runs the
// very SQL of that request through pgbench on DATABASE_URL, printing both and their ratio.
func benchCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8081", "base URL of the running service")
	scenario := fs.String("scenario", "templates", "templates (GET /templates?q&tag_ids&sort=popular) or full (GET /projects/{id}/full)")
	concurrency := fs.Int("concurrency", 32, "concurrent clients (HTTP and pgbench)")
	duration := fs.Duration("duration", 20*time.Second, "measured time of each side")
	warmup := fs.Duration("warmup", 3*time.Second, "unmeasured time before each side")
	q := fs.String("q", "wedding", "search text of the templates scenario")
	tag := fs.String("tag", "", "tag id of the templates scenario")
	project := fs.String("project", "", "project id of the full scenario")
	explain := fs.Bool("explain", false, "also report each statement's plan and buffers (EXPLAIN ANALYZE, BUFFERS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	if c.JWTSecret == "" {
		return errors.New("JWT_HS256_SECRET is needed to mint the load's token")
	}
	user, tenant := uuid.New(), uuid.New()
	token, err := auth.MintJWT([]byte(c.JWTSecret), c.JWTIssuer, c.JWTAudience, user, tenant, nil, time.Hour)
	if err != nil {
		return err
	}
	actor := domain.Actor{UserID: user, TenantID: tenant}

	// Capture the SQL the request runs, with its arguments, through a recording pool.
	cfg, err := pgxpool.ParseConfig(c.DatabaseURL)
	if err != nil {
		return err
	}
	rec := &bench.Recorder{}
	cfg.ConnConfig.Tracer = rec
	cfg.MaxConns = 1
	store.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	// The app only reads the catalog here: no object storage, no preview generator.
	a := app.New(store.New(pool), nil, nil, app.Config{}, slog.Default())
	var target string
	switch *scenario {
	case "templates":
		tagID, err := uuid.Parse(*tag)
		if err != nil {
			return fmt.Errorf("%w: --tag must be a uuid", cli.ErrUsage)
		}
		v := url.Values{"q": {*q}, "tag_ids": {tagID.String()}, "sort": {"popular"}}
		target = *base + "/v1/templates?" + v.Encode()
		if _, _, err := a.ListTemplates(ctx, actor, domain.TemplateQuery{Text: *q, TagIDs: []uuid.UUID{tagID},
			Sort: domain.SortPopular, Page: domain.NewPageRequest(nil, nil)}); err != nil {
			return err
		}
	case "full":
		id, err := uuid.Parse(*project)
		if err != nil {
			return fmt.Errorf("%w: --project must be a uuid", cli.ErrUsage)
		}
		target = *base + "/v1/projects/" + id.String() + "/full"
		if _, err := a.GetProjectFull(ctx, actor, id); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: unknown scenario %q", cli.ErrUsage, *scenario)
	}
	script, defines, err := bench.Script(rec.Statements)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "content bench %s: %d statement(s) per request; HTTP load on %s\n", *scenario, len(rec.Statements), target)

	svc, err := bench.Load(ctx, target, token, *concurrency, *warmup, *duration)
	if err != nil {
		return err
	}
	pg, err := bench.PGBench(ctx, c.DatabaseURL, script, defines, bench.Protocol(rec.Statements), *concurrency, *warmup, *duration)
	if err != nil {
		return err
	}
	r := benchReport{Scenario: *scenario, Service: svc, PGBench: pg}
	if *explain {
		if r.Plans, err = explainAll(ctx, pool, rec.Statements); err != nil {
			return err
		}
	}
	if pg.RPS > 0 {
		r.Ratio = svc.RPS / pg.RPS
	}
	fmt.Fprintf(os.Stderr, "%-10s service %8.0f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d\n", *scenario, svc.RPS, ms(svc.P50), ms(svc.P99), svc.Errors)
	fmt.Fprintf(os.Stderr, "%-10s pgbench %8.0f tx/s   p50 %7.2f ms  p99 %7.2f ms  ratio %.2f\n", *scenario, pg.RPS, ms(pg.P50), ms(pg.P99), r.Ratio)
	return json.NewEncoder(os.Stdout).Encode(r)
}

// explainAll explains every statement of the request but its BEGIN and COMMIT.
func explainAll(ctx context.Context, pool *pgxpool.Pool, statements []bench.Statement) ([]bench.Plan, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	var plans []bench.Plan
	for _, st := range statements {
		if verb, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(st.SQL)), " "); verb == "BEGIN" || verb == "COMMIT" {
			continue
		}
		p, err := bench.Explain(ctx, conn.Conn(), st)
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
	}
	return plans, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
