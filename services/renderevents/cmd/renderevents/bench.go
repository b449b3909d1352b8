package main

import (
	"bufio"
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// bench is the load generator of make bench-renderevents. It runs beside `renderevents
// serve` (a second process) with the same environment:
//
//  1. ceiling: the same N messages published to a scratch durable queue and consumed by a
//     bare amqp091 consume-and-ack loop (same prefetch);
//  2. service: N events published to the service's exchange, timed from the first publish
//     until the service committed all of them (its inbox, polled in the database);
//  3. relay: S SSE subscribers over J running jobs; progress ticks stamped with their send
//     time; latency from publish to an SSE frame at each subscriber.
func bench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	n := fs.Int("events", 100_000, "events published to the events exchange")
	subs := fs.Int("subscribers", 100, "SSE subscribers")
	live := fs.Int("jobs", 10, "running jobs the subscribers watch")
	ticks := fs.Int("ticks", 50, "progress ticks per watched job")
	tickEvery := fs.Duration("tick-interval", 20*time.Millisecond, "pause between rounds of ticks")
	baseURL := fs.String("api", "http://127.0.0.1:8083", "base URL of the service")
	timeout := fs.Duration("timeout", 3*time.Minute, "bound of each phase")
	cleanup := fs.Bool("cleanup", false, "only delete the service's queues and exchanges, then exit")
	phases := fs.String("phases", "ceiling,service,relay", "phases to run")
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
	pool, err := pgxpool.New(ctx, c.DatabaseURL)
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

	run := func(p string) bool { return strings.Contains(*phases, p) }
	var ceiling, rate, pubRate float64
	if run("ceiling") {
		if ceiling, err = benchCeiling(ctx, c, msgs, *timeout); err != nil {
			return fmt.Errorf("ceiling: %w", err)
		}
		fmt.Printf("ceiling (bare amqp091 consume+ack, prefetch %d): %.0f msg/s\n", c.ConsumerPrefetch, ceiling)
	}
	if run("service") {
		if rate, pubRate, err = benchService(ctx, c, pool, msgs, *timeout); err != nil {
			return fmt.Errorf("service: %w", err)
		}
		fmt.Printf("service (publish -> committed read model): %.0f events/s (publishing alone %.0f msg/s)\n", rate, pubRate)
		fmt.Printf("ratio service/ceiling: %.2f\n", rate/ceiling)
	}
	var (
		lat           []time.Duration
		frames, ended int
	)
	if run("relay") {
		if lat, frames, ended, err = benchRelay(ctx, c, pool, *baseURL, *live, *subs, *ticks, *tickEvery, *timeout); err != nil {
			return fmt.Errorf("relay: %w", err)
		}
	}
	fmt.Printf("progress relay to %d SSE subscribers: %d frames, p50 %s, p99 %s, max %s; %d/%d streams ended by the terminal event\n",
		*subs, frames, pct(lat, 50), pct(lat, 99), pct(lat, 100), ended, *subs)
	fmt.Printf("RESULT events=%d ceiling=%.0f service=%.0f ratio=%.2f publish=%.0f subscribers=%d frames=%d p50=%s p99=%s max=%s ended=%d\n",
		len(msgs), ceiling, rate, rate/ceiling, pubRate, *subs, frames, pct(lat, 50), pct(lat, 99), pct(lat, 100), ended)
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

// benchCeiling publishes msgs to a scratch durable topic exchange and queue with the same
// publisher and times a bare consume-and-ack loop until the last ack.
func benchCeiling(ctx context.Context, c Config, msgs []sim.Message, timeout time.Duration) (float64, error) {
	name := "bench-ceiling-" + randomSuffix()
	bc := c.BusConfig()
	bc.Service, bc.EventsExchange, bc.ProgressExchange = name, name, name+".progress"
	conn, err := bus.Dial(c.AMQPURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return 0, err
	}
	if err := bus.DeclareServiceQueue(ch, bc, "#"); err != nil {
		return 0, err
	}
	defer func() {
		_, _ = ch.QueueDelete(bc.ServiceQueue(), false, false, false)
		_ = ch.ExchangeDelete(bc.EventsExchange, false, false)
	}()
	if err := ch.Qos(c.ConsumerPrefetch, 0, false); err != nil {
		return 0, err
	}
	deliveries, err := ch.Consume(bc.ServiceQueue(), "", false, false, false, false, nil)
	if err != nil {
		return 0, err
	}
	pub, err := store.NewPublisher(bc)
	if err != nil {
		return 0, err
	}
	defer pub.Close()
	defer func() { _ = ch.ExchangeDelete(bc.ProgressExchange, false, false) }()

	done := make(chan time.Time, 1)
	go func() {
		count := 0
		for d := range deliveries {
			_ = d.Ack(false)
			if count++; count == len(msgs) {
				done <- time.Now()
				return
			}
		}
	}()
	began := time.Now()
	if err := pub.Publish(ctx, msgs, nil); err != nil {
		return 0, err
	}
	select {
	case end := <-done:
		return float64(len(msgs)) / end.Sub(began).Seconds(), nil
	case <-time.After(timeout):
		return 0, errors.New("the bare consumer did not receive every message in time")
	}
}

// benchService publishes msgs to the service and times until its inbox holds them all.
func benchService(ctx context.Context, c Config, pool *pgxpool.Pool, msgs []sim.Message, timeout time.Duration) (float64, float64, error) {
	count := func() (int, error) { return bus.HandledCount(ctx, pool, app.Consumer) }
	before, err := count()
	if err != nil {
		return 0, 0, err
	}
	pub, err := store.NewPublisher(c.BusConfig())
	if err != nil {
		return 0, 0, err
	}
	defer pub.Close()
	began := time.Now()
	pubDone := make(chan error, 1)
	var published time.Duration
	go func() {
		err := pub.Publish(ctx, msgs, nil)
		published = time.Since(began)
		pubDone <- err
	}()
	// Polling a count would load the database being measured: wait for the last event (a
	// cheap index lookup; batches commit in order), then check the count once.
	last := msgs[len(msgs)-1].EventID
	deadline := time.Now().Add(timeout)
	for {
		seen, err := bus.Handled(ctx, pool, app.Consumer, last)
		if err != nil {
			return 0, 0, err
		}
		if seen {
			end := time.Now()
			k, err := count()
			if err != nil {
				return 0, 0, err
			}
			if k-before >= len(msgs) {
				if err := <-pubDone; err != nil {
					return 0, 0, err
				}
				return float64(len(msgs)) / end.Sub(began).Seconds(), float64(len(msgs)) / published.Seconds(), nil
			}
		}
		if time.Now().After(deadline) {
			k, _ := count()
			return 0, 0, fmt.Errorf("only %d of %d events committed in %s", k-before, len(msgs), timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// benchRelay measures progress relay latency to SSE subscribers.
func benchRelay(ctx context.Context, c Config, pool *pgxpool.Pool, baseURL string, jobs, subs, ticks int,
	every, timeout time.Duration) ([]time.Duration, int, int, error) {
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
		return nil, 0, 0, err
	}
	defer pub.Close()
	if err := pub.Publish(ctx, setup, nil); err != nil {
		return nil, 0, 0, err
	}
	deadline := time.Now().Add(timeout)
	for {
		var k int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM render_jobs WHERE job_id = ANY($1) AND state = 'started'", ids).Scan(&k); err != nil {
			return nil, 0, 0, err
		}
		if k == jobs {
			break
		}
		if time.Now().After(deadline) {
			return nil, 0, 0, errors.New("the watched jobs did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tok, err := auth.MintJWT([]byte(c.JWTSecret), c.JWTIssuer, c.JWTAudience, uuid.New(), tenant, nil, time.Hour)
	if err != nil {
		return nil, 0, 0, err
	}
	var (
		mu      sync.Mutex
		lat     []time.Duration
		ended   int
		wg      sync.WaitGroup
		started sync.WaitGroup
	)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subs, MaxConnsPerHost: subs + 10}}
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
			var mine []time.Duration
			terminal := false
			err = readFrames(resp.Body, func(event string, data []byte) bool {
				now := time.Now()
				switch event {
				case "state":
					ready()
				case "progress":
					var f struct {
						Message *string `json:"message"`
					}
					if json.Unmarshal(data, &f) == nil && f.Message != nil {
						if ns, err := strconv.ParseInt(*f.Message, 10, 64); err == nil {
							mine = append(mine, now.Sub(time.Unix(0, ns)))
						}
					}
				case "completed", "failed", "cancelled":
					terminal = true
					return false
				}
				return true
			})
			mu.Lock()
			lat = append(lat, mine...)
			if terminal && err == nil {
				ended++
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
		if err := pub.Publish(ctx, round, stamp); err != nil {
			return nil, 0, 0, err
		}
		time.Sleep(every)
	}
	var final []sim.Message
	for _, id := range ids {
		final = append(final, benchMessage(tenant, t0.Add(time.Minute), events.RenderJobCompletedV1Payload{RenderJobID: id,
			ExportID: uuid.New(), OutputURL: "s3://bench/" + id.String(), DurationSec: 10, SizeBytes: 1 << 20}))
	}
	if err := pub.Publish(ctx, final, nil); err != nil {
		return nil, 0, 0, err
	}
	wg.Wait()
	slices.Sort(lat)
	return lat, len(lat), ended, nil
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

// readFrames calls fn with each SSE frame until fn returns false or the stream ends.
func readFrames(r io.Reader, fn func(event string, data []byte) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var event string
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if event != "" && !fn(event, data) {
				return nil
			}
			event, data = "", nil
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = []byte(strings.TrimPrefix(line, "data: "))
		}
	}
	return sc.Err()
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
