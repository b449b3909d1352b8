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
	// Rounds are the alternating runs Service and PGBench merge, each side's rate and their ratio.
	Rounds []benchRound `json:"rounds"`
	// Plans are the request's statements under EXPLAIN (ANALYZE, BUFFERS), with --explain.
	Plans []bench.Plan `json:"plans,omitempty"`
}

// benchRound is one round of a scenario: the service's run and pgbench's run just after it.
type benchRound struct {
	Service float64 `json:"service_rps"`
	PGBench float64 `json:"pgbench_rps"`
	Ratio   float64 `json:"ratio"`
}

// benchCommand loads one scenario of the running service (a second process on loopback) and runs the
// very SQL of that request through pgbench on DATABASE_URL, the two in alternating rounds,
// printing both and their ratio.
func benchCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8081", "base URL of the running service")
	scenario := fs.String("scenario", "templates", "templates (GET /templates?q&tag_ids&sort=popular) or full (GET /projects/{id}/full)")
	concurrency := fs.Int("concurrency", 32, "concurrent clients (HTTP and pgbench)")
	duration := fs.Duration("duration", 20*time.Second, "measured time of each side, over all rounds")
	warmup := fs.Duration("warmup", 3*time.Second, "unmeasured time before each side's first round (1s before the others)")
	rounds := fs.Int("rounds", 4, "alternating rounds of service then pgbench the duration is split into")
	q := fs.String("q", "wedding", "search text of the templates scenario")
	tag := fs.String("tag", "", "tag id of the templates scenario")
	project := fs.String("project", "", "project id of the full scenario")
	explain := fs.Bool("explain", false, "also report each statement's plan and buffers (EXPLAIN ANALYZE, BUFFERS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rounds < 1 {
		return fmt.Errorf("%w: --rounds must be at least 1", cli.ErrUsage)
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
		// The search's statement depends on the catalog's size, which the store learns from a
		// first search: the second is the one a running service sends.
		for range 2 {
			rec.Reset()
			if _, _, err := a.ListTemplates(ctx, actor, domain.TemplateQuery{Text: *q, TagIDs: []uuid.UUID{tagID},
				Sort: domain.SortPopular, Page: domain.NewPageRequest(nil, nil)}); err != nil {
				return err
			}
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

	// The sides alternate in rounds, so that both see the same minutes of the machine: on a shared
	// machine the rate of either side can move by a third from one minute to the next.
	var (
		r        = benchReport{Scenario: *scenario}
		svc, pg  []bench.Result
		perRound = max(time.Second, *duration/time.Duration(*rounds))
		protocol = bench.Protocol(rec.Statements)
	)
	for i := range *rounds {
		w := time.Second
		if i == 0 {
			w = *warmup
		}
		s, err := bench.Load(ctx, target, token, *concurrency, w, perRound)
		if err != nil {
			return err
		}
		p, err := bench.PGBench(ctx, c.DatabaseURL, script, defines, protocol, *concurrency, w, perRound)
		if err != nil {
			return err
		}
		svc, pg = append(svc, s), append(pg, p)
		round := benchRound{Service: s.RPS, PGBench: p.RPS}
		if p.RPS > 0 {
			round.Ratio = s.RPS / p.RPS
		}
		r.Rounds = append(r.Rounds, round)
		fmt.Fprintf(os.Stderr, "%-10s round %d: service %.0f req/s, pgbench %.0f tx/s, ratio %.2f\n", *scenario, i+1, s.RPS, p.RPS, round.Ratio)
	}
	r.Service, r.PGBench = bench.Merge(svc...), bench.Merge(pg...)
	if *explain {
		if r.Plans, err = explainAll(ctx, pool, rec.Statements); err != nil {
			return err
		}
	}
	if r.PGBench.RPS > 0 {
		r.Ratio = r.Service.RPS / r.PGBench.RPS
	}
	fmt.Fprintf(os.Stderr, "%-10s service %8.0f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d\n", *scenario, r.Service.RPS, ms(r.Service.P50), ms(r.Service.P99), r.Service.Errors)
	fmt.Fprintf(os.Stderr, "%-10s pgbench %8.0f tx/s   p50 %7.2f ms  p99 %7.2f ms  ratio %.2f\n", *scenario, r.PGBench.RPS, ms(r.PGBench.P50), ms(r.PGBench.P99), r.Ratio)
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
