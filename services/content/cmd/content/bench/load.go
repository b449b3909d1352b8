// Package bench measures the content service under load: an HTTP load generator (run as its own
// process, beside the service) and the same SQL run by pgbench as the ceiling.
package bench

import (
	"context"
	"fmt"
	"net/http"
	neturl "net/url"
	"slices"
	"sync"
	"time"

	"github.com/videotpl/platform/pkg/loadgen"
)

// Result is the outcome of one measured run.
type Result struct {
	Requests int64         `json:"requests"`
	Errors   int64         `json:"errors"`
	Duration time.Duration `json:"duration_ns"`
	RPS      float64       `json:"rps"`
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	// lat holds the run's latencies, sorted, for Merge.
	lat []time.Duration
}

// summarize computes throughput and percentiles from per-request latencies.
func summarize(lat []time.Duration, errors int64, elapsed time.Duration) Result {
	slices.Sort(lat)
	r := Result{Requests: int64(len(lat)), Errors: errors, Duration: elapsed, lat: lat}
	if elapsed > 0 {
		r.RPS = float64(len(lat)) / elapsed.Seconds()
	}
	if len(lat) > 0 {
		r.P50 = lat[len(lat)*50/100]
		r.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return r
}

// Merge is the result of the runs rs taken as one: their requests over their summed durations,
// the percentiles of all their latencies.
func Merge(rs ...Result) Result {
	var (
		lat     []time.Duration
		errors  int64
		elapsed time.Duration
	)
	for _, r := range rs {
		lat = append(lat, r.lat...)
		errors += r.Errors
		elapsed += r.Duration
	}
	return summarize(lat, errors, elapsed)
}

// Load sends GET url with the bearer token from concurrency workers, each on a connection of
// its own: first for warmup (not counted), then for duration. A response other than 200
// counts as an error.
func Load(ctx context.Context, url, token string, concurrency int, warmup, duration time.Duration) (Result, error) {
	const timeout = 30 * time.Second
	u, err := neturl.Parse(url)
	if err != nil {
		return Result{}, err
	}
	base, target := u.Scheme+"://"+u.Host, u.RequestURI()
	first, err := loadgen.NewClient(base, token, timeout)
	if err != nil {
		return Result{}, err
	}
	do := func(c *loadgen.Client) error {
		status, err := c.Do(http.MethodGet, target, nil)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("status %d", status)
		}
		return err
	}
	if err := do(first); err != nil {
		return Result{}, fmt.Errorf("first request to %s: %w", url, err)
	}
	first.Close()
	run := func(d time.Duration, record bool) ([]time.Duration, int64, time.Duration) {
		deadline := time.Now().Add(d)
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			all    []time.Duration
			failed int64
		)
		start := time.Now()
		for range concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, _ := loadgen.NewClient(base, token, timeout) // base parsed above
				defer c.Close()
				lat := make([]time.Duration, 0, 4096)
				var bad int64
				for time.Now().Before(deadline) && ctx.Err() == nil {
					t0 := time.Now()
					if err := do(c); err != nil {
						bad++
						continue
					}
					if record {
						lat = append(lat, time.Since(t0))
					}
				}
				mu.Lock()
				all = append(all, lat...)
				failed += bad
				mu.Unlock()
			}()
		}
		wg.Wait()
		return all, failed, time.Since(start)
	}
	run(warmup, false)
	lat, failed, elapsed := run(duration, true)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return summarize(lat, failed, elapsed), nil
}
