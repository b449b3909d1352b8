package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sender"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// benchWebhooks is the load generator of make bench-webhooks. It runs beside `renderevents
// serve` (a second process, same environment) and, for each shape (deliveries spread over 1
// endpoint, then over 100 endpoints of 100 tenants, events interleaved):
//
//  1. starts one loopback HTTP receiver per endpoint in this process: it answers 200 at once,
//     checks every signature and timestamp, and counts connections, deliveries and duplicates;
//  2. registers the endpoints through the API (event filter render.job.*);
//  3. live: publishes the events to the service's exchange and times from the first publish
//     to the last delivery received (ingestion and dispatch together); lag is each event's
//     event_time to its receipt;
//  4. backlog: the same with new events, but the receivers hold the first requests until the
//     service queued every delivery, then the dispatcher drains that backlog; timed, and lag
//     measured, from the release;
//  5. ceiling: a bare loop of signed POSTs of the backlog's bodies to the same receivers with
//     the service's concurrency (WEBHOOK_WORKERS), timed from its start to the last receipt.
//
// Every phase checks that each event arrived once, signed and fresh, and that the service
// recorded each delivery as succeeded after one attempt.
func benchWebhooks(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench-webhooks", flag.ContinueOnError)
	deliveries := fs.Int("deliveries", 10_000, "deliveries per shape")
	shapes := fs.String("endpoints", "1,100", "comma-separated endpoint counts, one run each")
	baseURL := fs.String("api", "http://127.0.0.1:8083", "base URL of the service")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound of each phase")
	cleanup := fs.Bool("cleanup", false, "only delete the service's queues and exchanges, then exit")
	servicePID := fs.Int("service-pid", 0, "process id of the service, to report its CPU time per delivery (Linux)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	if *cleanup {
		return deleteTopology(c)
	}
	pool, err := benchPool(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	pub, err := store.NewPublisher(c.BusConfig())
	if err != nil {
		return err
	}
	defer pub.Close()
	client, err := api.NewClientWithResponses(strings.TrimSuffix(*baseURL, "/") + "/v1")
	if err != nil {
		return err
	}
	for _, s := range strings.Split(*shapes, ",") {
		endpoints, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || endpoints < 1 {
			return fmt.Errorf("--endpoints: %q is not a positive count", s)
		}
		b := webhookBench{cfg: c, pool: pool, pub: pub, api: client, workers: c.WebhookWorkers, timeout: *timeout, pid: *servicePID}
		r, err := b.run(ctx, endpoints, *deliveries)
		if err != nil {
			return fmt.Errorf("%d endpoints: %w", endpoints, err)
		}
		fmt.Printf("%d endpoints, %d deliveries, %d workers:\n"+
			"  live (events entering): %.0f/s, lag p50 %s p99 %s, %d connections, service CPU %s, PostgreSQL CPU %s per delivery; published %.0f/s, queued %.0f/s\n"+
			"  backlog drained:        %.0f/s, p50 %s p99 %s, %d connections, service CPU %s, PostgreSQL CPU %s per delivery\n"+
			"  bare loop:              %.0f/s, p50 %s p99 %s, %d connections, CPU %s per POST (client and receivers)\n"+
			"  ratio to the bare loop: live %.2f, backlog %.2f\n",
			endpoints, r.deliveries, b.workers, r.live.rate, r.live.p50, r.live.p99, r.live.conns, r.live.cpu, r.live.pgCPU, r.publish, r.queued,
			r.backlog.rate, r.backlog.p50, r.backlog.p99, r.backlog.conns, r.backlog.cpu, r.backlog.pgCPU, r.ceiling.rate, r.ceiling.p50,
			r.ceiling.p99, r.ceiling.conns, r.ceiling.ownCPU,
			r.live.rate/r.ceiling.rate, r.backlog.rate/r.ceiling.rate)
		fmt.Printf("RESULT endpoints=%d deliveries=%d workers=%d live=%.0f lag_p50=%s lag_p99=%s live_cpu=%s live_pg_cpu=%s publish=%.0f queued=%.0f "+
			"backlog=%.0f backlog_p50=%s backlog_p99=%s backlog_conns=%d backlog_cpu=%s backlog_pg_cpu=%s ceiling=%.0f ceiling_p50=%s ceiling_p99=%s "+
			"ceiling_conns=%d ceiling_cpu=%s live_ratio=%.2f backlog_ratio=%.2f\n",
			endpoints, r.deliveries, b.workers, r.live.rate, r.live.p50, r.live.p99, r.live.cpu, r.live.pgCPU, r.publish, r.queued,
			r.backlog.rate, r.backlog.p50, r.backlog.p99, r.backlog.conns, r.backlog.cpu, r.backlog.pgCPU, r.ceiling.rate, r.ceiling.p50, r.ceiling.p99,
			r.ceiling.conns, r.ceiling.ownCPU, r.live.rate/r.ceiling.rate, r.backlog.rate/r.ceiling.rate)
	}
	return nil
}

type webhookBench struct {
	cfg     Config
	pool    *pgxpool.Pool
	pub     *store.Publisher
	api     *api.ClientWithResponses
	workers int
	timeout time.Duration
	pid     int // the service's, for its CPU time; 0: not measured
}

// phaseResult is what one phase measured: deliveries per second from its start to the last
// receipt, lag percentiles and the connections the receivers accepted.
type phaseResult struct {
	rate     float64
	p50, p99 time.Duration
	conns    int64
	cpu      time.Duration // the service's CPU time per delivery, when measured
	pgCPU    time.Duration // the service's PostgreSQL backends' CPU time per delivery, when measured
	ownCPU   time.Duration // this process's per delivery: the bare loop's client and receivers
}

type shapeResult struct {
	deliveries             int
	publish                float64 // events/s published (with confirms) while the service consumed them, live
	queued                 float64 // deliveries/s queued by the service's ingestion from the first publish, live
	live, backlog, ceiling phaseResult
}

func (b webhookBench) run(ctx context.Context, endpoints, deliveries int) (shapeResult, error) {
	perEndpoint := max(1, deliveries/endpoints)
	deliveries = perEndpoint * endpoints
	hooks := make([]*hookReceiver, endpoints)
	for i := range hooks {
		h, err := newHookReceiver()
		if err != nil {
			return shapeResult{}, err
		}
		defer h.close()
		hooks[i] = h
	}
	tenants := make([]uuid.UUID, endpoints)
	for i, h := range hooks {
		tenants[i] = uuid.New()
		tok, err := auth.MintJWT([]byte(b.cfg.JWTSecret), b.cfg.JWTIssuer, b.cfg.JWTAudience, uuid.New(), tenants[i], nil, time.Hour)
		if err != nil {
			return shapeResult{}, err
		}
		r, err := b.api.CreateWebhookEndpointWithResponse(ctx, &api.CreateWebhookEndpointParams{},
			api.WebhookEndpointCreate{Url: h.url, EventTypes: []string{"render.job.*"}},
			func(_ context.Context, req *http.Request) error {
				req.Header.Set("Authorization", "Bearer "+tok)
				return nil
			})
		if err != nil {
			return shapeResult{}, fmt.Errorf("register an endpoint: %w", err)
		}
		if r.JSON201 == nil {
			return shapeResult{}, fmt.Errorf("register an endpoint: %d %s", r.StatusCode(), r.Body)
		}
		h.secret = r.JSON201.Secret
	}
	var out shapeResult
	out.deliveries = deliveries
	s := shape{hooks: hooks, tenants: tenants, perEndpoint: perEndpoint}
	live, err := b.servicePhase(ctx, s, false)
	if err != nil {
		return out, fmt.Errorf("service, live: %w", err)
	}
	out.live, out.publish, out.queued = live.result, live.publish, live.queued
	backlog, err := b.servicePhase(ctx, s, true)
	if err != nil {
		return out, fmt.Errorf("service, backlog: %w", err)
	}
	out.backlog = backlog.result

	s.expect()
	own := processCPU(os.Getpid())
	began := time.Now()
	go b.bareLoop(ctx, backlog.msgs, s)
	if out.ceiling, err = b.await(ctx, hooks, began, &began); err != nil {
		return out, fmt.Errorf("bare loop: %w", err)
	}
	out.ceiling.ownCPU = (processCPU(os.Getpid()) - own) / time.Duration(deliveries)
	return out, nil
}

// shape is one run's endpoints: a receiver and a tenant each, perEndpoint deliveries to each.
type shape struct {
	hooks       []*hookReceiver
	tenants     []uuid.UUID
	perEndpoint int
}

func (s shape) expect() {
	for _, h := range s.hooks {
		h.reset(s.perEndpoint)
	}
}

// of is the receiver of the i-th event: events interleave the tenants, as many tenants'
// events do on the bus.
func (s shape) of(i int) (*hookReceiver, uuid.UUID) {
	return s.hooks[i%len(s.hooks)], s.tenants[i%len(s.hooks)]
}

type servicePhase struct {
	result          phaseResult
	publish, queued float64
	msgs            []sim.Message
}

// servicePhase publishes the shape's events to the service and waits for their deliveries.
// Live, the dispatcher sends while the events are still being consumed, and lag is from each
// event's event_time. Held, the receivers hold the first requests until the service queued
// every delivery, so the dispatcher then drains a backlog; its rate and lag are from the
// release.
func (b webhookBench) servicePhase(ctx context.Context, s shape, held bool) (servicePhase, error) {
	n := s.perEndpoint * len(s.hooks)
	s.expect()
	if held {
		for _, h := range s.hooks {
			h.hold()
		}
	}
	cpu, pg := processCPU(b.pid), b.postgresCPU(ctx)
	began := time.Now()
	out := servicePhase{msgs: make([]sim.Message, n)}
	const chunk = 500 // each chunk is stamped just before it is published: event_time is publish time
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		for i := lo; i < hi; i++ {
			_, tenant := s.of(i)
			m, err := queuedEvent(tenant)
			if err != nil {
				return out, err
			}
			out.msgs[i] = m
		}
		if err := b.pub.Publish(ctx, out.msgs[lo:hi], nil); err != nil {
			return out, err
		}
	}
	out.publish = float64(n) / time.Since(began).Seconds()
	var err error
	if !held {
		out.result, err = b.await(ctx, s.hooks, began, nil)
	} else {
		if _, err := b.awaitDeliveries(ctx, s.tenants, began, n, false); err != nil {
			return out, err
		}
		released := time.Now()
		cpu, pg = processCPU(b.pid), b.postgresCPU(ctx) // the dispatcher's alone
		for _, h := range s.hooks {
			h.release()
		}
		out.result, err = b.await(ctx, s.hooks, released, &released)
	}
	if err != nil {
		return out, err
	}
	lastQueued, err := b.awaitDeliveries(ctx, s.tenants, began, n, true)
	if err != nil {
		return out, err
	}
	out.result.cpu = (processCPU(b.pid) - cpu) / time.Duration(n)
	out.result.pgCPU = (b.postgresCPU(ctx) - pg) / time.Duration(n)
	out.queued = float64(n) / lastQueued.Sub(began).Seconds()
	return out, nil
}

// processCPU is the user and system CPU time process pid used so far (0 when unknown).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields 14 and 15 (utime, stime, in clock ticks of 1/100 s) follow the ")" that ends the name.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	user, _ := strconv.ParseInt(f[11], 10, 64)
	sys, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(user+sys) * 10 * time.Millisecond
}

// benchApplication names the load generator's own database sessions, which postgresCPU leaves out.
const benchApplication = "renderevents-bench-webhooks"

// benchPool is the load generator's pool, its sessions named benchApplication.
func benchPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = benchApplication
	return pgxpool.NewWithConfig(ctx, cfg)
}

// postgresCPU is the CPU time used so far by the backends serving the service in the bench's
// database (its pool keeps them open, so the difference over a phase is what the phase cost
// PostgreSQL; a backend that ends within the phase is not counted). 0 when not measured.
func (b webhookBench) postgresCPU(ctx context.Context) time.Duration {
	if b.pid == 0 {
		return 0
	}
	rows, err := b.pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend' AND application_name <> $1`, benchApplication)
	if err != nil {
		return 0
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return 0
	}
	var total time.Duration
	for _, pid := range pids {
		total += processCPU(pid)
	}
	return total
}

// queuedEvent is a render.job.queued.v1 event of tenant, stamped now.
func queuedEvent(tenant uuid.UUID) (sim.Message, error) {
	env, err := events.NewEvent(tenant, events.RenderJobQueuedV1Payload{RenderJobID: uuid.New(), SavedProjectID: uuid.New(),
		PriorityQueue: events.PriorityQueuePaid, PriceType: events.PriceTypeCash, Region: "eu"})
	if err != nil {
		return sim.Message{}, err
	}
	body, err := json.Marshal(env)
	if err != nil {
		return sim.Message{}, err
	}
	return sim.Message{Exchange: sim.Events, RoutingKey: env.EventType, EventID: env.EventID, EventType: env.EventType,
		TenantID: tenant, Body: body}, nil
}

// bareLoop is the ceiling: the same bodies POSTed to the same receivers, signed as the service
// signs them, by as many goroutines as the service has workers, on one keep-alive client.
func (b webhookBench) bareLoop(ctx context.Context, msgs []sim.Message, s shape) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: b.workers}}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(msgs); i = int(next.Add(1) - 1) {
				m := msgs[i]
				h, _ := s.of(i)
				now := time.Now()
				sig, err := domain.SignatureHeader([]string{h.secret}, m.EventID.String(), now, m.Body)
				if err != nil {
					h.fail(err)
					continue
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(m.Body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("User-Agent", sender.UserAgent)
				req.Header.Set("webhook-id", m.EventID.String())
				req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
				req.Header.Set("webhook-signature", sig)
				resp, err := client.Do(req)
				if err != nil {
					h.fail(err)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
}

// await waits until every receiver got its share and returns the phase's figures; the lag of
// a receipt is from origin when given, else from its event's event_time.
func (b webhookBench) await(ctx context.Context, hooks []*hookReceiver, began time.Time, origin *time.Time) (phaseResult, error) {
	deadline := time.Now().Add(b.timeout)
	for {
		done := true
		for _, h := range hooks {
			if err := h.failure(); err != nil {
				return phaseResult{}, err
			}
			done = done && h.complete()
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			got := 0
			for _, h := range hooks {
				got += h.count()
			}
			return phaseResult{}, fmt.Errorf("only %d deliveries received in %s", got, b.timeout)
		}
		select {
		case <-ctx.Done():
			return phaseResult{}, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	var (
		last  time.Time
		lags  []time.Duration
		conns int64
	)
	for _, h := range hooks {
		r := h.results()
		conns += r.conns
		for _, g := range r.got {
			if g.at.After(last) {
				last = g.at
			}
			from := g.eventTime
			if origin != nil {
				from = *origin
			}
			lags = append(lags, g.at.Sub(from))
		}
	}
	slices.Sort(lags)
	n := len(lags)
	return phaseResult{rate: float64(n) / last.Sub(began).Seconds(), p50: pct(lags, 50), p99: pct(lags, 99), conns: conns}, nil
}

// awaitDeliveries waits until the service queued the n deliveries of tenants since (or, when
// succeeded, recorded them as succeeded, each after one attempt: nothing sent twice or left
// half-written) and returns when the last was queued.
func (b webhookBench) awaitDeliveries(ctx context.Context, tenants []uuid.UUID, since time.Time, n int, succeeded bool) (time.Time, error) {
	deadline := time.Now().Add(b.timeout)
	for {
		var queued, done, attempts int
		var last time.Time
		err := b.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status = 'succeeded'),
			coalesce(sum(attempts), 0), coalesce(max(created_at), now())
			FROM webhook_deliveries WHERE tenant_id = ANY($1) AND created_at >= $2`, tenants, since).Scan(&queued, &done, &attempts, &last)
		switch {
		case err != nil:
			return time.Time{}, err
		case succeeded && done == n && attempts != n:
			return time.Time{}, fmt.Errorf("%d attempts recorded for %d deliveries", attempts, n)
		case succeeded && done == n, !succeeded && queued == n:
			return last, nil
		case time.Now().After(deadline):
			return time.Time{}, fmt.Errorf("%d of %d deliveries queued, %d recorded as succeeded", queued, n, done)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hookReceiver is one tenant's endpoint on loopback: it answers 200 at once and checks what it
// gets as a receiver following Standard Webhooks would.
type hookReceiver struct {
	srv    *http.Server
	ln     net.Listener
	url    string
	secret string
	conns  atomic.Int64

	held chan struct{} // requests wait until it is closed; nil: answered at once

	mu     sync.Mutex
	want   int
	seen   map[string]bool
	got    []receipt
	broken error
}

type receipt struct {
	at, eventTime time.Time
}

type receiptsOf struct {
	got   []receipt
	conns int64
}

func newHookReceiver() (*hookReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hookReceiver{ln: ln, url: "http://" + ln.Addr().String() + "/hooks"}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				h.conns.Add(1)
			}
		}}
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

func (h *hookReceiver) close() { _ = h.srv.Close() }

// reset starts a phase in which want deliveries are expected.
func (h *hookReceiver) reset(want int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.want, h.seen, h.got, h.broken = want, make(map[string]bool, want), make([]receipt, 0, want), nil
	h.conns.Store(0)
}

// hold makes requests wait until release.
func (h *hookReceiver) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = make(chan struct{})
}

func (h *hookReceiver) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.held)
	h.held = nil
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h.mu.Lock()
	held := h.held
	h.mu.Unlock()
	if held != nil {
		<-held
	}
	at := time.Now()
	body, err := io.ReadAll(req.Body)
	id := req.Header.Get("webhook-id")
	sec, terr := strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
	var env struct {
		EventTime time.Time `json:"event_time"`
	}
	switch {
	case err != nil:
	case terr != nil || at.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute:
		err = errors.New("a webhook-timestamp is missing or more than 5 minutes away")
	case req.Header.Get("Content-Type") != "application/json":
		err = errors.New("a delivery is not application/json")
	case !domain.Verify(h.secret, id, time.Unix(sec, 0), body, req.Header.Get("webhook-signature")):
		err = errors.New("a signature does not verify")
	default:
		err = json.Unmarshal(body, &env)
	}
	h.mu.Lock()
	switch {
	case err != nil:
		h.broken = errors.Join(h.broken, err)
	case h.seen[id]:
		h.broken = errors.Join(h.broken, fmt.Errorf("event %s delivered twice", id))
	default:
		h.seen[id] = true
		h.got = append(h.got, receipt{at: at, eventTime: env.EventTime})
	}
	h.mu.Unlock()
	if err != nil {
		w.WriteHeader(http.StatusUnauthorized) // as a receiver refuses what does not verify
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (h *hookReceiver) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.broken = errors.Join(h.broken, err)
}

func (h *hookReceiver) failure() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.broken
}

func (h *hookReceiver) complete() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.got) >= h.want
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.got)
}

func (h *hookReceiver) results() receiptsOf {
	h.mu.Lock()
	defer h.mu.Unlock()
	return receiptsOf{got: append([]receipt(nil), h.got...), conns: h.conns.Load()}
}
