package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/loadgen"
)

// benchResult is what `orgboard bench` prints.
type benchResult struct {
	Scenario    string  `json:"scenario"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	Calls       int     `json:"calls"` // every request made, the warm-up's among them (for CPU per request)
	Errors      int     `json:"errors"`
	RPS         float64 `json:"rps"`
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
}

// bench is the load generator of make bench-orgboard; it runs as a second process against a
// served instance: --scenario board (GET /api/orgboard/board of the teams in turn) or move
// (PATCH .../move of every item between in_progress and in_review; each worker owns a disjoint
// share of the items, so every move is allowed).
func bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8082", "base URL of the service")
	scenario := fs.String("scenario", "board", "board or move")
	teamsFlag := fs.String("teams", "", "comma-separated team ids (from seed --bench)")
	user := fs.String("user", "", "user id the requests are made as (a member of the teams' organization)")
	concurrency := fs.Int("concurrency", 32, "concurrent requests")
	duration := fs.Duration("duration", 20*time.Second, "how long to load")
	warmup := fs.Duration("warmup", time.Second, "unmeasured load before, every worker at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	uid, err := uuid.Parse(*user)
	if err != nil {
		return usageErr("--user: %v", err)
	}
	var teams []string
	for t := range strings.SplitSeq(*teamsFlag, ",") {
		if t = strings.TrimSpace(t); t != "" {
			teams = append(teams, t)
		}
	}
	if len(teams) == 0 {
		return usageErr("--teams is required")
	}
	token, err := auth.MintJWT([]byte(c.JWTSecret), c.JWTIssuer, c.JWTAudience, uid, uuid.New(), nil, time.Hour)
	if err != nil {
		return err
	}
	// The measured requests go through loadgen's lean client, one connection per worker: the
	// load generator shares the cores with the service it measures. Setup reads a board's JSON
	// through net/http.
	clients := make([]*loadgen.Client, *concurrency)
	for w := range clients {
		if clients[w], err = loadgen.NewClient(*base, token, 30*time.Second); err != nil {
			return usageErr("--url: %v", err)
		}
		defer clients[w].Close()
	}
	call := func(worker int, method, path string, body []byte) bool {
		st, err := clients[worker].Do(method, path, body)
		return err == nil && st == http.StatusOK
	}

	var work func(worker, i int) (ok bool)
	switch *scenario {
	case "board":
		work = func(worker, i int) bool {
			return call(worker, http.MethodGet, "/api/orgboard/board?team_id="+teams[(worker+i)%len(teams)], nil)
		}
	case "move":
		items, err := itemsInProgress(ctx, *base, token, teams)
		if err != nil {
			return err
		}
		if len(items) < *concurrency {
			return fmt.Errorf("only %d items in progress for %d workers", len(items), *concurrency)
		}
		// Worker w owns items w, w+concurrency, ...; inReview tracks each item's status.
		inReview := make([]bool, len(items))
		toReview, toProgress := []byte(`{"status":"in_review"}`), []byte(`{"status":"in_progress"}`)
		work = func(worker, i int) bool {
			share := (len(items)-worker-1) / *concurrency + 1
			k := worker + (i%share)**concurrency
			to := toReview
			if inReview[k] {
				to = toProgress
			}
			if call(worker, http.MethodPatch, "/api/orgboard/tasks/"+items[k]+"/move", to) {
				inReview[k] = !inReview[k]
				return true
			}
			return false
		}
	default:
		return usageErr("--scenario must be board or move")
	}

	// Every worker loads at once, first unmeasured for the warm-up: the service's pool opens its
	// connections and they prepare their statements, as pgbench's first second and each of its
	// clients' first transactions are not counted either. next[w] is worker w's next call.
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errCount  int
		wg        sync.WaitGroup
		next      = make([]int, *concurrency)
	)
	run := func(until time.Time, measured bool) {
		for w := range *concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				bad := 0
				for ; time.Now().Before(until) && ctx.Err() == nil; next[w]++ {
					t0 := time.Now()
					if work(w, next[w]) {
						mine = append(mine, time.Since(t0))
					} else {
						bad++
					}
				}
				if !measured {
					return
				}
				mu.Lock()
				latencies = append(latencies, mine...)
				errCount += bad
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	run(time.Now().Add(*warmup), false)
	start := time.Now()
	run(start.Add(*duration), true)
	elapsed := time.Since(start).Seconds()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	res := benchResult{Scenario: *scenario, Concurrency: *concurrency, Seconds: elapsed, Requests: len(latencies),
		Calls: sumInts(next), Errors: errCount, RPS: float64(len(latencies)) / elapsed, P50ms: pct(0.50), P99ms: pct(0.99)}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return err
	}
	if errCount > 0 {
		return fmt.Errorf("%d requests failed", errCount)
	}
	return nil
}

// itemsInProgress collects the ids of the in-progress items of the teams' boards.
func itemsInProgress(ctx context.Context, base, token string, teams []string) ([]string, error) {
	var ids []string
	for _, t := range teams {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/orgboard/board?team_id="+t, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		st := resp.StatusCode
		if st != http.StatusOK {
			return nil, fmt.Errorf("board of team %s: status %d: %s", t, st, body)
		}
		var b struct {
			Columns []struct {
				Status string `json:"status"`
				Items  []struct {
					ID string `json:"id"`
				} `json:"items"`
			} `json:"columns"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, err
		}
		for _, col := range b.Columns {
			if col.Status == "in_progress" {
				for _, it := range col.Items {
					ids = append(ids, it.ID)
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("no item is in progress: seed with seed --bench")
	}
	return ids, nil
}

func sumInts(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}
