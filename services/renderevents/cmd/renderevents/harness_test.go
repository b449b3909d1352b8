package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// sealKeys is the keyring of the tests' services, which run as in production.
const sealKeys = "test:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// harness is one running service on its own database and its own exchanges and queues.
type harness struct {
	t      *testing.T
	auth   *authtest.Issuer // signs the callers' tokens
	cfg    Config
	svc    *Service
	pool   *pgxpool.Pool
	url    string
	pub    *store.Publisher
	client *api.ClientWithResponses
	tel    *telemetry.Telemetry // the service's metric registry: what /metrics serves
	stop   func() error         // stops the service (SIGTERM) and returns what Run returned
	// Service tokens: one with renderevents:read, one with scopes of another service only.
	readerToken, blindToken string
}

type option func(*Config)

func start(t *testing.T, opts ...option) *harness {
	t.Helper()
	var cfg Config
	if err := config.Load(&cfg); err != nil {
		t.Fatal(err)
	}
	topology := bustest.Config(t) // removed after the service stopped (cleanups run last first)
	cfg.AMQPURL, cfg.Service = topology.AMQPURL, topology.Service
	cfg.EventsExchange, cfg.ProgressExchange, cfg.DeadLetterExchange = topology.EventsExchange,
		topology.ProgressExchange, topology.DeadLetterExchange
	issuer := authtest.New(t)
	readerToken := issuer.ServiceToken(t, "reader", "renderevents:read")
	blindToken := issuer.ServiceToken(t, "blind", "content:admin")
	issuer.Configure(&cfg.Common)
	cfg.SealKeys = sealKeys
	cfg.OutboundAllow = "127.0.0.0/8"
	cfg.ProgressFlushInterval = 50 * time.Millisecond
	cfg.WebhookPollInterval = 50 * time.Millisecond
	cfg.ConsumerMaxRetries = 1
	cfg.ConsumerBatchWait = 2 * time.Millisecond
	for _, o := range opts {
		o(&cfg)
	}
	pool, _ := pgtest.NewDB(t, Migrations()...)
	authn, err := auth.FromConfig(cfg.Common)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tel, err := telemetry.Setup(context.Background(), Name, telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	svc, err := NewService(cfg, Deps{Pool: pool, Auth: authn, Logger: log, Telemetry: tel})
	if err != nil {
		t.Fatalf("build the service: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, nil) }()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(30 * time.Second):
				stopErr = errors.New("the service did not stop within 30s")
			}
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("service stopped with: %v", err)
		}
	})
	select {
	case <-svc.Ready():
	case err := <-done:
		t.Fatalf("service stopped at start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("service not ready within 30s")
	}
	url := httpxtest.Start(t, svc.Echo)
	spec, err := rendereventsserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client, err := api.NewClientWithResponses(url+"/v1", api.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := store.NewPublisher(cfg.BusConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	return &harness{t: t, auth: issuer, cfg: cfg, svc: svc, pool: pool, url: url, pub: pub, client: client, tel: tel, stop: stop,
		readerToken: readerToken, blindToken: blindToken}
}

// token mints a JWT for a user of tenant.
func (h *harness) token(tenant uuid.UUID, roles ...string) string {
	return h.auth.Token(h.t, authtest.Tenant(tenant), authtest.Roles(roles...))
}

func (h *harness) admin() api.RequestEditorFn { return authtest.Bearer(h.token(uuid.New(), "admin")) }

// publish sends messages and waits for the broker's confirms.
func (h *harness) publish(msgs []sim.Message) {
	h.t.Helper()
	if err := h.pub.Publish(context.Background(), msgs, nil); err != nil {
		h.t.Fatalf("publish: %v", err)
	}
}

// eventually polls cond every 20ms until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// on returns the harness for test t (a subtest of the one that started the service).
func (h *harness) on(t *testing.T) *harness {
	c := *h
	c.t = t
	return &c
}

// waitApplied waits until every event of msgs (on the events exchange) is recorded in the
// service's inbox.
func (h *harness) waitApplied(msgs ...sim.Message) {
	h.t.Helper()
	var ids []uuid.UUID
	for _, m := range msgs {
		if m.Exchange == sim.Events {
			ids = append(ids, m.EventID)
		}
	}
	eventually(h.t, 30*time.Second, "the events to be applied", func() bool {
		var n int
		if err := h.pool.QueryRow(context.Background(),
			"SELECT count(DISTINCT event_id) FROM bus_inbox WHERE consumer = $1 AND event_id = ANY($2)", app.Consumer, ids).
			Scan(&n); err != nil {
			h.t.Fatal(err)
		}
		return n == len(distinctIDs(ids))
	})
}

func distinctIDs(ids []uuid.UUID) map[uuid.UUID]bool {
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	return seen
}

func onlyEvents(msgs []sim.Message) []sim.Message {
	var out []sim.Message
	for _, m := range msgs {
		if m.Exchange == sim.Events {
			out = append(out, m)
		}
	}
	return out
}
