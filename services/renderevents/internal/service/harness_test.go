package service_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	amqp "github.com/rabbitmq/amqp091-go"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/renderevents/internal/broker"
	"github.com/videotpl/platform/services/renderevents/internal/service"
	"github.com/videotpl/platform/services/renderevents/internal/sim"
)

const jwtSecret = "test-secret-of-at-least-32-bytes-long!!"

// sealKeys is the keyring of the tests' services, which run as in production.
const sealKeys = "test:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

func amqpURL() string {
	if u := os.Getenv("AMQP_TEST_URL"); u != "" {
		return u
	}
	return "amqp://guest:guest@127.0.0.1:5672/"
}

// harness is one running service on its own database and its own exchanges and queues.
type harness struct {
	t      *testing.T
	cfg    service.Config
	svc    *service.Service
	pool   *pgxpool.Pool
	url    string
	pub    *broker.Publisher
	client *api.ClientWithResponses
	stop   func() error // stops the service (SIGTERM) and returns what Run returned
}

type option func(*service.Config)

func suffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func start(t *testing.T, opts ...option) *harness {
	t.Helper()
	var cfg service.Config
	if err := config.Load(&cfg); err != nil {
		t.Fatal(err)
	}
	s := suffix()
	cfg.AMQPURL = amqpURL()
	cfg.BusService = "renderevents-test-" + s
	cfg.EventsExchange = "events-test-" + s
	cfg.ProgressExchange = "render.progress-test-" + s
	cfg.DeadLetterExchange = "dead-letter-test-" + s
	cfg.JWTSecret = jwtSecret
	cfg.SealKeys = sealKeys
	cfg.OutboundAllow = "127.0.0.0/8"
	cfg.ProgressFlushInterval = 50 * time.Millisecond
	cfg.WebhookPollInterval = 50 * time.Millisecond
	cfg.ConsumerMaxRetries = 1
	cfg.ConsumerBatchWait = 2 * time.Millisecond
	for _, o := range opts {
		o(&cfg)
	}
	pool, _ := pgtest.NewDB(t, service.Migrations()...)
	authn, err := auth.FromConfig(cfg.Common)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := service.New(cfg, service.Deps{Pool: pool, Auth: authn, Logger: log})
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
		deleteTopology(t, cfg)
	})
	select {
	case <-svc.Ready():
	case err := <-done:
		t.Fatalf("service stopped at start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("service not ready within 30s")
	}
	url := httpxtest.Start(t, svc.Echo)
	spec, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client, err := api.NewClientWithResponses(url+"/v1", api.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := broker.NewPublisher(cfg.BusConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pub.Close() })
	return &harness{t: t, cfg: cfg, svc: svc, pool: pool, url: url, pub: pub, client: client, stop: stop}
}

// deleteTopology removes the test's durable queues and exchanges.
func deleteTopology(t *testing.T, cfg service.Config) {
	conn, err := amqp.Dial(cfg.AMQPURL)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return
	}
	bc := cfg.BusConfig()
	_, _ = ch.QueueDelete(bc.ServiceQueue(), false, false, false)
	_, _ = ch.QueueDelete(bc.DeadLetterQueue(), false, false, false)
	_ = ch.ExchangeDelete(cfg.EventsExchange, false, false)
	_ = ch.ExchangeDelete(cfg.DeadLetterExchange, false, false)
	_ = ch.ExchangeDelete(cfg.ProgressExchange, false, false)
}

// token mints a JWT for a user of tenant.
func token(t *testing.T, tenant uuid.UUID, roles ...string) string {
	t.Helper()
	tok, err := auth.MintJWT([]byte(jwtSecret), "videotpl-dev", "videotpl", uuid.New(), tenant, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func bearer(tok string) api.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+tok)
		return nil
	}
}

func (h *harness) admin() api.RequestEditorFn { return bearer(token(h.t, uuid.New(), "admin")) }

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

// applied counts the events the service recorded in its inbox.
func (h *harness) applied() int {
	var n int
	_ = h.pool.QueryRow(context.Background(), "SELECT count(*) FROM bus_inbox").Scan(&n)
	return n
}

// waitApplied waits until n distinct events are applied.
func (h *harness) waitApplied(n int) {
	h.t.Helper()
	eventually(h.t, 30*time.Second, "the events to be applied", func() bool { return h.applied() >= n })
}

func distinctEvents(msgs []sim.Message) int {
	seen := map[uuid.UUID]bool{}
	for _, m := range msgs {
		if m.Exchange == sim.Events {
			seen[m.EventID] = true
		}
	}
	return len(seen)
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

func contains(s, sub string) bool { return strings.Contains(s, sub) }
