package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store"
)

// benchReads is the read side of make bench-growth (scripts/bench-growth-renderevents.sh):
// each read endpoint of a tenant at a concurrency for a duration against the running
// service, and the EXPLAIN (ANALYZE, BUFFERS) of the statements the service runs for it,
// captured by running the same query of internal/app on a traced pool. It prints one
// markdown row per request, then the plans.
func benchReads(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench-reads", flag.ContinueOnError)
	baseURL := fs.String("api", "http://127.0.0.1:8083", "base URL of the service")
	tenantID := fs.String("tenant", "", "tenant whose data is read")
	label := fs.String("label", "", "first column of the rows (e.g. the number of events)")
	concurrency := fs.Int("concurrency", 32, "requests in flight")
	duration := fs.Duration("duration", 10*time.Second, "measured time per request")
	plans := fs.String("plans", "", "file receiving the full plans (appended)")
	deep := fs.Int("deep", 20, "page of the job list reached through its cursors")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	tenant, err := uuid.Parse(*tenantID)
	if err != nil {
		return fmt.Errorf("--tenant: %w", err)
	}
	tracer := &statementCapture{}
	pcfg, err := pgxpool.ParseConfig(c.DatabaseURL)
	if err != nil {
		return err
	}
	pcfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	queries := app.NewQueries(store.New(pool, nil))
	actor := domain.Actor{TenantID: tenant}
	tok, err := auth.MintJWT([]byte(c.JWTSecret), c.JWTIssuer, c.JWTAudience, uuid.New(), tenant, nil, time.Hour)
	if err != nil {
		return err
	}

	// The cursor of the deep page and a job for the timeline, read as a client would.
	var (
		cursor *string
		job    uuid.UUID
	)
	limit := 50
	for range *deep - 1 {
		jobs, next, err := queries.ListJobs(ctx, actor, app.ListParams{Cursor: cursor, Limit: &limit}, domain.JobFilter{})
		if err != nil {
			return err
		}
		if next == nil || len(jobs) == 0 {
			return fmt.Errorf("the tenant has fewer than %d pages of jobs", *deep)
		}
		cursor, job = next, jobs[0].ID
	}
	failed := "failed"
	type read struct {
		name string
		path string
		run  func() error // the app query the request runs
	}
	reads := []read{
		{"GET /v1/render-jobs?limit=50 (first page)", "/v1/render-jobs?limit=50", func() error {
			_, _, err := queries.ListJobs(ctx, actor, app.ListParams{Limit: &limit}, domain.JobFilter{})
			return err
		}},
		{fmt.Sprintf("GET /v1/render-jobs?limit=50&cursor=... (page %d)", *deep), "/v1/render-jobs?limit=50&cursor=" + url.QueryEscape(*cursor), func() error {
			_, _, err := queries.ListJobs(ctx, actor, app.ListParams{Limit: &limit, Cursor: cursor}, domain.JobFilter{})
			return err
		}},
		{"GET /v1/render-jobs?state=failed&limit=50", "/v1/render-jobs?state=failed&limit=50", func() error {
			_, _, err := queries.ListJobs(ctx, actor, app.ListParams{Limit: &limit}, domain.JobFilter{State: &failed})
			return err
		}},
		{"GET /v1/render-jobs/{id}/timeline", "/v1/render-jobs/" + job.String() + "/timeline", func() error {
			_, err := queries.Timeline(ctx, actor, job)
			return err
		}},
		{"GET /v1/usage/daily (last 30 days)", "/v1/usage/daily", func() error {
			_, err := queries.DailyUsage(ctx, actor, nil, nil, nil)
			return err
		}},
		{"GET /v1/usage/monthly (last 12 months)", "/v1/usage/monthly", func() error {
			_, err := queries.MonthlyUsage(ctx, actor, nil, nil, nil)
			return err
		}},
	}
	var details strings.Builder
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *concurrency, MaxConnsPerHost: *concurrency}}
	for _, r := range reads {
		res, err := load(ctx, client, *baseURL+r.path, tok, *concurrency, *duration)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		stmts := tracer.capture(r.run)
		if len(stmts) == 0 {
			return fmt.Errorf("%s: no statement captured", r.name)
		}
		var bufs, shapes []string
		fmt.Fprintf(&details, "#### %s, %s\n", *label, r.name)
		for _, s := range stmts {
			plan, err := explain(ctx, pool, s)
			if err != nil {
				return fmt.Errorf("%s: explain: %w", r.name, err)
			}
			bufs = append(bufs, planBuffers(plan))
			shapes = append(shapes, planShape(plan))
			fmt.Fprintf(&details, "```\n%s\n```\n", strings.Join(plan, "\n"))
		}
		fmt.Printf("| %s | %s | %.0f | %s | %s | %d | %s | %s |\n", *label, r.name, res.rps,
			ms(res.p50), ms(res.p99), res.errors, strings.Join(bufs, "; "), strings.Join(shapes, "; "))
	}
	if *plans != "" {
		return appendFile(*plans, details.String())
	}
	return nil
}

type loadResult struct {
	rps      float64
	p50, p99 time.Duration
	errors   int64
}

// load sends GET path with concurrency requests in flight for d and measures each answer.
func load(ctx context.Context, client *http.Client, target, token string, concurrency int, d time.Duration) (loadResult, error) {
	var (
		mu     sync.Mutex
		lat    []time.Duration
		errs   atomic.Int64
		wg     sync.WaitGroup
		status atomic.Int64
	)
	do := func() (time.Duration, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		began := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			status.Store(int64(resp.StatusCode))
			return 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		return time.Since(began), err
	}
	if _, err := do(); err != nil { // warm: connections, caches, prepared statements
		return loadResult{}, err
	}
	end := time.Now().Add(d)
	began := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(end) {
				t, err := do()
				if err != nil {
					errs.Add(1)
					continue
				}
				mine = append(mine, t)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	took := time.Since(began)
	if len(lat) == 0 {
		return loadResult{}, fmt.Errorf("no request succeeded (last status %d)", status.Load())
	}
	slices.Sort(lat)
	return loadResult{rps: float64(len(lat)) / took.Seconds(), p50: pct(lat, 50), p99: pct(lat, 99), errors: errs.Load()}, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// statement is one statement a query ran, with its arguments.
type statement struct {
	sql  string
	args []any
}

// statementCapture is a pgx tracer that records the statements run while capturing.
type statementCapture struct {
	mu    sync.Mutex
	on    bool
	stmts []statement
}

func (t *statementCapture) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.on {
		t.stmts = append(t.stmts, statement{sql: data.SQL, args: data.Args})
	}
	return ctx
}

func (t *statementCapture) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// capture runs run and returns the statements it ran.
func (t *statementCapture) capture(run func() error) []statement {
	t.mu.Lock()
	t.on, t.stmts = true, nil
	t.mu.Unlock()
	err := run()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.on = false
	if err != nil {
		return nil
	}
	return t.stmts
}

// explain runs EXPLAIN (ANALYZE, BUFFERS) of s and returns the plan's lines.
func explain(ctx context.Context, pool *pgxpool.Pool, s statement) ([]string, error) {
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+s.sql, s.args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// planBuffers is the buffer line of the plan's top node (shared hit and read).
func planBuffers(plan []string) string {
	for _, l := range plan {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Buffers:") {
			return strings.TrimPrefix(l, "Buffers: ")
		}
	}
	return "no buffers"
}

// planShape names the plan's nodes, outermost first.
func planShape(plan []string) string {
	var nodes []string
	for _, l := range plan {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "->"))
		if t == "" || !strings.Contains(t, "(cost=") {
			continue
		}
		node := strings.TrimSpace(t[:strings.Index(t, "(cost=")])
		nodes = append(nodes, node)
	}
	return strings.Join(nodes, " > ")
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, text)
	return errors.Join(err, f.Close())
}
