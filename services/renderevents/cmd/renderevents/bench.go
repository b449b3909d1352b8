package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// bench is the load generator of make bench-renderevents. It runs with the environment of
// `renderevents serve` and starts the service itself, as a child process, when it needs it:
//
//  1. ceiling: the N messages published to a scratch durable queue first, then drained by a
//     bare amqp091 consume-and-ack loop (same prefetch, one ack per message, a connection
//     dialled as the service's are: bus.Dial, reading through the same buffer), timed from its
//     dial to the last ack;
//  2. drain: the same N messages (and a sentinel job at the end) published to the service's
//     queue while no service runs, then `renderevents serve` started and timed from its
//     process start until the API shows the sentinel job completed; the inbox must then hold
//     every event once and the dead-letter queue none;
//  3. relay: S SSE subscribers over J running jobs; progress ticks stamped with their send
//     time; latency from publish to an SSE frame at each subscriber, every frame counted. A
//     round's J ticks are published at once, so S frames leave the service together;
//  4. relay-spread: the relay again on new jobs, each round's ticks published one job at a
//     time, evenly over the interval, as independent jobs report: S/J frames leave together.
func bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	n := fs.Int("events", 100_000, "events in the backlog")
	subs := fs.Int("subscribers", 1000, "SSE subscribers")
	live := fs.Int("jobs", 10, "running jobs the subscribers watch")
	ticks := fs.Int("ticks", 50, "progress ticks per watched job")
	tickEvery := fs.Duration("tick-interval", 100*time.Millisecond, "pause between rounds of ticks (one tick per watched job a round)")
	baseURL := fs.String("api", "http://127.0.0.1:8083", "base URL of the service (HTTP_ADDR)")
	timeout := fs.Duration("timeout", 3*time.Minute, "bound of each phase")
	cleanup := fs.Bool("cleanup", false, "only delete the service's queues and exchanges, then exit")
	phases := fs.String("phases", "ceiling,drain,relay,relay-spread", "phases to run")
	serveLog := fs.String("serve-log", os.DevNull, "file receiving the started service's log")
	servePID := fs.String("serve-pidfile", "", "file receiving the started service's process id (for the caller's cleanup)")
	serveBin := fs.String("serve-binary", "", "executable whose serve command is the service (default: this one), e.g. another build to compare")
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
	pcfg, err := pgxpool.ParseConfig(c.DatabaseURL)
	if err != nil {
		return err
	}
	pcfg.ConnConfig.RuntimeParams["application_name"] = "bench" // not the service's: its CPU is not counted
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return err
	}
	defer pool.Close()

	stream, err := sim.Generate(sim.Options{Tenants: 50, Jobs: *n/4 + 1, Snapshots: *n / 20, FailRate: 0.05,
		CancelRate: 0.05, Seed: 2025})
	if err != nil {
		return err
	}
	var msgs []sim.Message
	for _, m := range stream.Messages {
		if m.Exchange == sim.Events && len(msgs) < *n {
			msgs = append(msgs, m)
		}
	}
	fmt.Printf("workload: %d events (%d jobs, %d snapshots, payments, refunds) over 50 tenants\n", len(msgs), *n/4+1, *n/20)

	var svc *childService
	defer func() {
		if svc != nil {
			svc.stop()
		}
	}()
	startService := func() error {
		if svc == nil {
			svc, err = startChildService(*serveBin, *serveLog, *servePID)
		}
		return err
	}

	run := func(p string) bool { return slices.Contains(strings.Split(*phases, ","), p) }
	var ceiling, rate, pubRate float64
	var cpu drainCPU
	var ceilingCPU bareCPU
	if run("ceiling") {
		if ceiling, ceilingCPU, err = benchCeiling(ctx, c, msgs, *timeout); err != nil {
			return fmt.Errorf("ceiling: %w", err)
		}
		fmt.Printf("ceiling (bare amqp091 drain, prefetch %d, one ack per message): %.0f msg/s\n", c.ConsumerPrefetch, ceiling)
		fmt.Printf("CPU per message during the ceiling: bare consumer %s, RabbitMQ %s\n", ceilingCPU.consumer, ceilingCPU.broker)
	}
	if run("drain") {
		d := drain{c: c, pool: pool, api: *baseURL, timeout: *timeout}
		servicePID := func() int {
			if svc == nil {
				return 0
			}
			return svc.cmd.Process.Pid
		}
		if rate, pubRate, cpu, err = d.run(ctx, msgs, startService, servicePID); err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		fmt.Printf("service (process start -> last event visible in the API): %.0f events/s (publishing the backlog: %.0f msg/s)\n", rate, pubRate)
		fmt.Printf("CPU per event during the drain: service %s, its PostgreSQL backends %s, RabbitMQ %s\n", cpu.service, cpu.postgres, cpu.broker)
		fmt.Printf("ratio service/ceiling: %.2f\n", rate/ceiling)
	}
	byCPU, bound := ceilingCPU.ratios(cpu)
	relay := func(phase string, spread bool) (relayResult, error) {
		if !run(phase) {
			return relayResult{}, nil
		}
		if err := startService(); err != nil {
			return relayResult{}, err
		}
		if err := waitReady(ctx, *baseURL, *timeout); err != nil {
			return relayResult{}, err
		}
		r, err := benchRelay(ctx, c, pool, *baseURL, *live, *subs, *ticks, *tickEvery, spread, *timeout)
		if err != nil {
			return relayResult{}, fmt.Errorf("%s: %w", phase, err)
		}
		how := "each round's ticks at once"
		if spread {
			how = "each round's ticks spread over the interval"
		}
		fmt.Printf("progress relay to %d SSE subscribers, %s: %d/%d frames, p50 %s, p99 %s, max %s; %d/%d streams ended by the terminal event\n",
			*subs, how, r.frames(), r.expected, pct(r.lat, 50), pct(r.lat, 99), pct(r.lat, 100), r.ended, *subs)
		return r, nil
	}
	r, err := relay("relay", false)
	if err != nil {
		return err
	}
	rs, err := relay("relay-spread", true)
	if err != nil {
		return err
	}
	fmt.Printf("RESULT events=%d ceiling=%.0f service=%.0f ratio=%.2f publish=%.0f cpu_service=%s cpu_postgres=%s cpu_broker=%s"+
		" cpu_bare=%s cpu_bare_broker=%s ratio_cpu=%.2f bound_cpu=%.2f subscribers=%d frames=%d expected=%d p50=%s p99=%s max=%s ended=%d"+
		" spread_frames=%d spread_expected=%d spread_p50=%s spread_p99=%s spread_max=%s spread_ended=%d\n",
		len(msgs), ceiling, rate, rate/ceiling, pubRate, cpu.service, cpu.postgres, cpu.broker,
		ceilingCPU.consumer, ceilingCPU.broker, byCPU, bound, *subs, r.frames(), r.expected, pct(r.lat, 50), pct(r.lat, 99), pct(r.lat, 100), r.ended,
		rs.frames(), rs.expected, pct(rs.lat, 50), pct(rs.lat, 99), pct(rs.lat, 100), rs.ended)
	return nil
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := min(len(d)-1, (len(d)*p)/100)
	return d[i].Round(10 * time.Microsecond)
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// childService is `renderevents serve` run by the bench with the bench's environment.
type childService struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startChildService starts the serve command of exe (this executable when empty), its log
// going to logPath and its process id to pidPath (when not empty).
func startChildService(exe, logPath, pidPath string) (*childService, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "serve")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start the service: %w", err)
	}
	if pidPath != "" {
		if err := os.WriteFile(pidPath, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
			_ = cmd.Process.Kill()
			return nil, err
		}
	}
	s := &childService{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(s.done)
	}()
	return s, nil
}

// stop ends the service gracefully (SIGTERM), killing it if it has not ended in 30 s.
func (s *childService) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// waitReady polls /readyz until the service answers 200.
func waitReady(ctx context.Context, api string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api+"/readyz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("the service did not become ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// benchCeiling publishes msgs to a scratch durable topic exchange and queue, then times a
// bare consumer from its dial to its last ack (one ack per message, the service's prefetch).
func benchCeiling(ctx context.Context, c Config, msgs []sim.Message, timeout time.Duration) (rate float64, cpu bareCPU, err error) {
	name := "bench-ceiling-" + randomSuffix()
	bc := c.BusConfig()
	bc.Service, bc.EventsExchange, bc.ProgressExchange = name, name, name+".progress"
	setup, err := bus.Dial(c.AMQPURL)
	if err != nil {
		return 0, bareCPU{}, err
	}
	defer setup.Close()
	ch, err := setup.Channel()
	if err != nil {
		return 0, bareCPU{}, err
	}
	if err := bus.DeclareServiceQueue(ch, bc, "#"); err != nil {
		return 0, bareCPU{}, err
	}
	defer func() {
		_, _ = ch.QueueDelete(bc.ServiceQueue(), false, false, false)
		_ = ch.ExchangeDelete(bc.EventsExchange, false, false)
		_ = ch.ExchangeDelete(bc.ProgressExchange, false, false)
	}()
	pub, err := store.NewPublisher(bc)
	if err != nil {
		return 0, bareCPU{}, err
	}
	err = pub.Publish(ctx, msgs, nil)
	_ = pub.Close()
	if err != nil {
		return 0, bareCPU{}, err
	}

	broker := brokerPID()
	self0, broker0 := processCPU(os.Getpid()), processCPU(broker)
	began := time.Now()
	conn, err := bus.Dial(c.AMQPURL)
	if err != nil {
		return 0, bareCPU{}, err
	}
	defer conn.Close()
	cch, err := conn.Channel()
	if err != nil {
		return 0, bareCPU{}, err
	}
	if err := cch.Qos(c.ConsumerPrefetch, 0, false); err != nil {
		return 0, bareCPU{}, err
	}
	deliveries, err := cch.ConsumeWithContext(ctx, bc.ServiceQueue(), "", false, false, false, false, nil)
	if err != nil {
		return 0, bareCPU{}, err
	}
	expire := time.After(timeout)
	for count := 0; count < len(msgs); {
		select {
		case d, ok := <-deliveries:
			if !ok {
				return 0, bareCPU{}, errors.New("the delivery channel closed")
			}
			if err := d.Ack(false); err != nil {
				return 0, bareCPU{}, err
			}
			count++
		case <-expire:
			return 0, bareCPU{}, fmt.Errorf("the bare consumer received %d of %d messages in %s", count, len(msgs), timeout)
		}
	}
	took := time.Since(began)
	n := time.Duration(len(msgs))
	cpu = bareCPU{consumer: (processCPU(os.Getpid()) - self0) / n, broker: (processCPU(broker) - broker0) / n}
	return float64(len(msgs)) / took.Seconds(), cpu, nil
}

// bareCPU is the CPU time (user and system) per message of the ceiling's drain: the bare
// consumer's (this process) and the broker's, when it runs on this machine.
type bareCPU struct{ consumer, broker time.Duration }

// ratios compares the ceiling's CPU per message with the service's drain (its process, its
// PostgreSQL backends, the broker): the ratio by CPU, and the most the ratio could be if the
// service process cost nothing, with the database and broker work it causes unchanged. Both
// are 0 when the broker's CPU is not known.
func (b bareCPU) ratios(d drainCPU) (byCPU, bound float64) {
	if b.broker == 0 || d.broker == 0 {
		return 0, 0
	}
	bare := float64(b.consumer + b.broker)
	return bare / float64(d.service+d.postgres+d.broker), bare / float64(d.postgres+d.broker)
}

// brokerPID is the process id of the RabbitMQ server (Erlang's beam.smp) on this machine, or
// 0 when none runs here.
func brokerPID() int {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if comm, err := os.ReadFile("/proc/" + d.Name() + "/comm"); err == nil && strings.TrimSpace(string(comm)) == "beam.smp" {
			return pid
		}
	}
	return 0
}

// drain times the service through a backlog published while it does not run.
type drain struct {
	c       Config
	pool    *pgxpool.Pool
	api     string
	timeout time.Duration
}

// drainCPU is the CPU time (user and system) per event of the drain: the service process's,
// that of the PostgreSQL backends serving its database and the broker's (0 when it runs
// elsewhere).
type drainCPU struct{ service, postgres, broker time.Duration }

// run publishes msgs and a sentinel job (queued, then completed) behind them to the
// service's queue, declared and bound as the service declares it, starts the service and
// polls the sentinel job in the API until it is completed, then the inbox until it holds
// every event: batches (and the transactions of a batch) commit concurrently, so the
// sentinel may be visible before an earlier event is. It returns the events applied per
// second since the process start, the publishing rate and the CPU per event.
func (d drain) run(ctx context.Context, msgs []sim.Message, start func() error, pid func() int) (rate, pubRate float64, cpu drainCPU, err error) {
	bc := d.c.BusConfig()
	conn, err := bus.Dial(d.c.AMQPURL)
	if err != nil {
		return 0, 0, drainCPU{}, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return 0, 0, drainCPU{}, err
	}
	if err := bus.DeclareServiceQueue(ch, bc, busapi.BindingKeys...); err != nil {
		return 0, 0, drainCPU{}, err
	}
	q, err := ch.QueueDeclarePassive(bc.ServiceQueue(), true, false, false, false, nil)
	if err != nil {
		return 0, 0, drainCPU{}, err
	}
	if q.Messages > 0 {
		return 0, 0, drainCPU{}, fmt.Errorf("the service queue %s must be empty: it holds %d messages", bc.ServiceQueue(), q.Messages)
	}
	before, err := bus.HandledCount(ctx, d.pool, app.Consumer)
	if err != nil {
		return 0, 0, drainCPU{}, err
	}

	tenant, job := uuid.New(), uuid.New()
	t0 := time.Now().UTC()
	backlog := append(slices.Clone(msgs),
		benchMessage(tenant, t0, events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
			PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"}),
		benchMessage(tenant, t0.Add(time.Second), events.RenderJobCompletedV1Payload{RenderJobID: job, ExportID: uuid.New(),
			OutputURL: "s3://bench/" + job.String(), DurationSec: 10, SizeBytes: 1 << 20}))
	pub, err := store.NewPublisher(bc)
	if err != nil {
		return 0, 0, drainCPU{}, err
	}
	began := time.Now()
	err = pub.Publish(ctx, backlog, nil)
	pubRate = float64(len(backlog)) / time.Since(began).Seconds()
	_ = pub.Close()
	if err != nil {
		return 0, 0, drainCPU{}, err
	}
	tok, err := auth.MintJWT([]byte(d.c.JWTSecret), d.c.JWTIssuer, d.c.JWTAudience, uuid.New(), tenant, nil, time.Hour)
	if err != nil {
		return 0, 0, drainCPU{}, err
	}

	broker := brokerPID()
	broker0 := processCPU(broker)
	began = time.Now()
	if err := start(); err != nil {
		return 0, 0, drainCPU{}, err
	}
	if err := d.waitCompleted(ctx, job, tok); err != nil {
		return 0, 0, drainCPU{}, err
	}
	// Nothing lost, nothing twice: the inbox holds every event of the backlog exactly once
	// (its key is the event id) and nothing was dead-lettered.
	after, err := d.waitInbox(ctx, before+len(backlog))
	if err != nil {
		return 0, 0, drainCPU{}, err
	}
	took := time.Since(began)
	n := time.Duration(len(backlog))
	cpu = drainCPU{service: processCPU(pid()) / n, postgres: d.backendsCPU(ctx) / n, broker: (processCPU(broker) - broker0) / n}
	if after-before != len(backlog) {
		return 0, 0, drainCPU{}, fmt.Errorf("the inbox holds %d new events, the backlog had %d", after-before, len(backlog))
	}
	if q, err := ch.QueueDeclarePassive(bc.DeadLetterQueue(), true, false, false, false, nil); err == nil && q.Messages > 0 {
		return 0, 0, drainCPU{}, fmt.Errorf("%d events were dead-lettered", q.Messages)
	}
	return float64(len(backlog)) / took.Seconds(), pubRate, cpu, nil
}

// waitInbox polls the inbox until it holds want events (or more: the check that follows
// tells) and returns its count.
func (d drain) waitInbox(ctx context.Context, want int) (int, error) {
	deadline := time.Now().Add(d.timeout)
	for {
		n, err := bus.HandledCount(ctx, d.pool, app.Consumer)
		if err != nil || n >= want {
			return n, err
		}
		if time.Now().After(deadline) {
			return n, fmt.Errorf("the inbox holds %d events, not %d, after %s", n, want, d.timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// backendsCPU is the CPU time the PostgreSQL backends of the bench's database (the
// service's connections) used so far; 0 when PostgreSQL runs elsewhere.
func (d drain) backendsCPU(ctx context.Context) time.Duration {
	rows, err := d.pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
		  AND application_name <> 'bench'`)
	if err != nil {
		return 0
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0
	}
	var total time.Duration
	for _, p := range pids {
		total += processCPU(int(p))
	}
	return total
}

// waitCompleted polls GET /v1/render-jobs/{job} until the job is completed.
func (d drain) waitCompleted(ctx context.Context, job uuid.UUID, token string) error {
	deadline := time.Now().Add(d.timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.api+"/v1/render-jobs/"+job.String(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			var j struct {
				State string `json:"state"`
			}
			err := json.NewDecoder(resp.Body).Decode(&j)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && err == nil && j.State == "completed" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the backlog was not applied within %s", d.timeout)
		}
		// Each poll costs the service a request (token, routing, the read): every 5 ms it had
		// been 6.5 % of the service's CPU during the drain. 20 ms adds at most that to a
		// drain of seconds.
		time.Sleep(20 * time.Millisecond)
	}
}

// relayResult is what the subscribers of the relay measured.
type relayResult struct {
	lat      []time.Duration // publish -> frame, one per progress frame received
	expected int             // progress frames published to the subscribers' jobs, per subscriber summed
	ended    int             // streams ended by the terminal event
}

func (r relayResult) frames() int { return len(r.lat) }

// benchRelay measures progress relay latency to SSE subscribers. Each round publishes one tick
// per job: all at once, or with spread one job at a time, evenly over the interval.
func benchRelay(ctx context.Context, c Config, pool *pgxpool.Pool, baseURL string, jobs, subs, ticks int,
	every time.Duration, spread bool, timeout time.Duration) (relayResult, error) {
	tenant := uuid.New()
	t0 := time.Now().UTC()
	var setup []sim.Message
	ids := make([]uuid.UUID, jobs)
	for i := range ids {
		ids[i] = uuid.New()
		setup = append(setup,
			benchMessage(tenant, t0, events.RenderJobQueuedV1Payload{RenderJobID: ids[i], SavedProjectID: uuid.New(),
				PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"}),
			benchMessage(tenant, t0.Add(time.Millisecond), events.RenderJobStartedV1Payload{RenderJobID: ids[i], StartedAt: t0}))
	}
	pub, err := store.NewPublisher(c.BusConfig())
	if err != nil {
		return relayResult{}, err
	}
	defer pub.Close()
	if err := pub.Publish(ctx, setup, nil); err != nil {
		return relayResult{}, err
	}
	deadline := time.Now().Add(timeout)
	for {
		var k int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM render_jobs WHERE job_id = ANY($1) AND state = 'started'", ids).Scan(&k); err != nil {
			return relayResult{}, err
		}
		if k == jobs {
			break
		}
		if time.Now().After(deadline) {
			return relayResult{}, errors.New("the watched jobs did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tok, err := auth.MintJWT([]byte(c.JWTSecret), c.JWTIssuer, c.JWTAudience, uuid.New(), tenant, nil, time.Hour)
	if err != nil {
		return relayResult{}, err
	}
	var (
		mu      sync.Mutex
		res     = relayResult{expected: subs * ticks}
		wg      sync.WaitGroup
		started sync.WaitGroup
	)
	// One connection per subscriber (HTTP/1.1): the process needs subs file descriptors.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subs, MaxConnsPerHost: subs + 10,
		DisableCompression: true}}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for i := 0; i < subs; i++ {
		wg.Add(1)
		started.Add(1)
		go func(job uuid.UUID) {
			defer wg.Done()
			var once sync.Once
			ready := func() { once.Do(started.Done) }
			defer ready()
			req, _ := http.NewRequestWithContext(sctx, http.MethodGet, baseURL+"/v1/render-jobs/"+job.String()+"/progress", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				fmt.Fprintf(os.Stderr, "subscriber: %v %v\n", err, resp)
				return
			}
			defer resp.Body.Close()
			mine := make([]time.Duration, 0, ticks)
			terminal := false
			err = readFrames(resp.Body, func(event string, data []byte) bool {
				now := time.Now()
				switch event {
				case "state":
					ready()
				case "progress":
					if ns, ok := sentAt(data); ok {
						mine = append(mine, now.Sub(time.Unix(0, ns)))
					}
				case "completed", "failed", "cancelled":
					terminal = true
					return false
				}
				return true
			})
			mu.Lock()
			res.lat = append(res.lat, mine...)
			if terminal && err == nil {
				res.ended++
			}
			mu.Unlock()
		}(ids[i%jobs])
	}
	started.Wait()
	for k := 1; k <= ticks; k++ {
		round := make([]sim.Message, 0, jobs)
		for _, id := range ids {
			round = append(round, benchMessage(tenant, t0.Add(time.Duration(k)*time.Millisecond+time.Second), events.RenderJobProgressV1Payload{
				RenderJobID: id, Step: events.StepRendering, Progress: k * 100 / (ticks + 1), CurrentFrame: &k}))
		}
		stamp := func(_ int, m *sim.Message) { restamp(m, time.Now()) }
		if !spread {
			if err := pub.Publish(ctx, round, stamp); err != nil {
				return relayResult{}, err
			}
			time.Sleep(every)
			continue
		}
		for j := range round {
			if err := pub.Publish(ctx, round[j:j+1], stamp); err != nil {
				return relayResult{}, err
			}
			time.Sleep(every / time.Duration(len(round)))
		}
	}
	var final []sim.Message
	for _, id := range ids {
		final = append(final, benchMessage(tenant, t0.Add(time.Minute), events.RenderJobCompletedV1Payload{RenderJobID: id,
			ExportID: uuid.New(), OutputURL: "s3://bench/" + id.String(), DurationSec: 10, SizeBytes: 1 << 20}))
	}
	if err := pub.Publish(ctx, final, nil); err != nil {
		return relayResult{}, err
	}
	wg.Wait()
	slices.Sort(res.lat)
	return res, nil
}

func benchMessage(tenant uuid.UUID, at time.Time, p events.Payload) sim.Message {
	env, _ := events.NewEvent(tenant, p)
	env.EventTime = at
	body, _ := json.Marshal(env)
	m := sim.Message{Exchange: sim.Events, RoutingKey: env.EventType, EventID: env.EventID, EventType: env.EventType, TenantID: tenant, Body: body}
	if pp, ok := p.(events.RenderJobProgressV1Payload); ok {
		m.Exchange, m.RoutingKey = sim.Progress, "render.job.progress."+pp.RenderJobID.String()
	}
	return m
}

// restamp puts the send time into a progress tick's message field.
func restamp(m *sim.Message, now time.Time) {
	var env map[string]any
	if json.Unmarshal(m.Body, &env) != nil {
		return
	}
	if data, ok := env["data"].(map[string]any); ok {
		data["message"] = strconv.FormatInt(now.UnixNano(), 10)
	}
	m.Body, _ = json.Marshal(env)
}

// messageField precedes the send time in a progress frame's data.
var messageField = []byte(`"message":"`)

// sentAt reads the send time restamp put into a progress frame, without decoding the
// frame: a thousand streams are read by this one process.
func sentAt(data []byte) (int64, bool) {
	i := bytes.Index(data, messageField)
	if i < 0 {
		return 0, false
	}
	rest := data[i+len(messageField):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return ns, err == nil
}

// readFrames calls fn with each SSE frame until fn returns false or the stream ends; data
// is valid until fn returns.
func readFrames(r io.Reader, fn func(event string, data []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		event string
		data  []byte
	)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
			if event != "" && !fn(event, data) {
				return nil
			}
			event, data = "", data[:0]
		case bytes.HasPrefix(line, []byte("event: ")):
			event = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("data: ")):
			data = append(data[:0], line[len("data: "):]...)
		}
	}
}

// deleteTopology removes the service's durable queues and its exchanges (bench cleanup).
func deleteTopology(c Config) error {
	conn, err := bus.Dial(c.AMQPURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	bc := c.BusConfig()
	for _, q := range []string{bc.ServiceQueue(), bc.DeadLetterQueue()} {
		if _, err := ch.QueueDelete(q, false, false, false); err != nil {
			return err
		}
	}
	for _, x := range []string{c.EventsExchange, c.DeadLetterExchange} {
		if err := ch.ExchangeDelete(x, false, false); err != nil {
			return err
		}
	}
	return nil
}
