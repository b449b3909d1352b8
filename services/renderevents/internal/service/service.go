// Package service assembles the render-events service: the events consumer, the progress
// relay, the coalescing progress writer, the job notification listener, the webhook
// dispatcher and the HTTP API, run together in one process until its context ends.
// cmd/renderevents and the component tests build it the same way.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"golang.org/x/sync/errgroup"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/broker"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/httpapi"
	"github.com/videotpl/platform/services/renderevents/internal/outbound"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/migrations"
	"github.com/videotpl/platform/specs"
)

// Name is the service's name in logs, metrics, queues and the inbox.
const Name = "renderevents"

// Config is the service's configuration, from the environment only.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:":8083" desc:"address the HTTP server listens on"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/renderevents?sslmode=disable" desc:"PostgreSQL connection URL of the renderevents database" secret:"true"`
	DBMaxConns  int32  `env:"DB_MAX_CONNS" envDefault:"16" desc:"largest number of database connections of the pool"`

	BusService         string `env:"BUS_SERVICE" envDefault:"renderevents" desc:"names the queues: <name>.events, <name>.dead-letter, <name>.progress.<instance>"`
	EventsExchange     string `env:"EVENTS_EXCHANGE" envDefault:"events" desc:"durable topic exchange of the events"`
	ProgressExchange   string `env:"PROGRESS_EXCHANGE" envDefault:"render.progress" desc:"auto-delete fanout exchange of job progress"`
	DeadLetterExchange string `env:"DEAD_LETTER_EXCHANGE" envDefault:"dead-letter" desc:"exchange of the dead-letter queues"`

	ConsumerBatchSize  int           `env:"CONSUMER_BATCH_SIZE" envDefault:"256" desc:"most events applied in one database transaction"`
	ConsumerBatchWait  time.Duration `env:"CONSUMER_BATCH_WAIT" envDefault:"20ms" desc:"how long a batch waits to fill up after its first event (bounds the read model lag it adds)"`
	ConsumerPrefetch   int           `env:"CONSUMER_PREFETCH" envDefault:"1024" desc:"AMQP prefetch count of the events queue"`
	ConsumerMaxRetries int           `env:"CONSUMER_MAX_RETRIES" envDefault:"5" desc:"retries of a failing event before it is dead-lettered"`

	ProgressFlushInterval time.Duration `env:"PROGRESS_FLUSH_INTERVAL" envDefault:"250ms" desc:"how often the latest progress of each job is persisted (at most once per interval per job)"`
	SSEKeepAlive          time.Duration `env:"SSE_KEEPALIVE" envDefault:"15s" desc:"idle interval of keep-alive comments on progress streams"`

	WebhookRetrySchedule string        `env:"WEBHOOK_RETRY_SCHEDULE" envDefault:"5s,5m,30m,2h,5h,10h,10h" desc:"pause before each webhook retry (jittered +-50%); attempts = entries + 1"`
	WebhookDisableAfter  int           `env:"WEBHOOK_DISABLE_AFTER" envDefault:"10" desc:"deliveries in a row failing after all retries that disable an endpoint"`
	WebhookPollInterval  time.Duration `env:"WEBHOOK_POLL_INTERVAL" envDefault:"1s" desc:"how often an idle dispatcher looks for due deliveries"`
	WebhookWorkers       int           `env:"WEBHOOK_WORKERS" envDefault:"8" desc:"concurrent webhook attempts per instance"`
	WebhookSecretKey     string        `env:"WEBHOOK_SECRET_KEY" desc:"base64 32-byte key sealing webhook secrets at rest (AES-256-GCM); unset: stored unsealed (development)" secret:"true"`
}

// Migrations are the migration sets of the database: the bus's outbox and inbox, then the
// service's own.
func Migrations() []pgxdb.Migrations {
	return []pgxdb.Migrations{bus.Migrations(), {Name: Name, FS: migrations.FS}}
}

// BusConfig is the pkg/bus configuration of c.
func (c Config) BusConfig() bus.Config {
	return bus.Config{AMQPURL: c.AMQPURL, Service: c.BusService, EventsExchange: c.EventsExchange,
		ProgressExchange: c.ProgressExchange, DeadLetterExchange: c.DeadLetterExchange, Prefetch: c.ConsumerPrefetch,
		Retry: bus.RetryConfig{MaxRetries: c.ConsumerMaxRetries}}
}

// RetrySchedule parses WEBHOOK_RETRY_SCHEDULE.
func (c Config) RetrySchedule() ([]time.Duration, error) {
	var out []time.Duration
	for _, s := range strings.Split(c.WebhookRetrySchedule, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("WEBHOOK_RETRY_SCHEDULE: %q is not a duration", s)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("WEBHOOK_RETRY_SCHEDULE is empty")
	}
	return out, nil
}

// Deps are what the service is built on.
type Deps struct {
	Pool      *pgxpool.Pool
	Auth      *auth.Authenticator
	Logger    *slog.Logger
	Telemetry *telemetry.Telemetry // nil: private registry, otel globals
}

// Service is the assembled service.
type Service struct {
	cfg        Config
	log        *slog.Logger
	Echo       *echo.Echo
	Store      *store.Store
	Ingest     *app.Ingest
	Hub        *app.Hub
	Writer     *app.ProgressWriter
	Dispatcher *app.Dispatcher
	Consumer   *broker.EventsConsumer
	Progress   *broker.ProgressConsumer

	handler *httpapi.Handler
	closers []func() error
	ready   chan struct{}
}

// New builds the service; Run starts it.
func New(cfg Config, d Deps) (*Service, error) {
	log := d.Logger
	box, err := domain.NewSecretBox(cfg.WebhookSecretKey)
	if err != nil {
		return nil, err
	}
	if cfg.WebhookSecretKey == "" {
		log.Warn("WEBHOOK_SECRET_KEY is not set: webhook secrets are stored unsealed (development only)")
	}
	policy, err := domain.NewOutboundPolicy(cfg.OutboundAllow)
	if err != nil {
		return nil, err
	}
	schedule, err := cfg.RetrySchedule()
	if err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, log: log, ready: make(chan struct{})}
	s.Store = store.New(d.Pool, box)
	s.Hub = app.NewHub()
	s.Writer = app.NewProgressWriter(s.Store, cfg.ProgressFlushInterval, log)
	s.Dispatcher = app.NewDispatcher(s.Store, outbound.NewSender(policy), app.DispatcherConfig{
		Retry: domain.RetryPolicy{Schedule: schedule}, DisableAfter: cfg.WebhookDisableAfter,
		PollInterval: cfg.WebhookPollInterval, Workers: cfg.WebhookWorkers}, log)
	s.Ingest = app.NewIngest(s.Store)
	s.Ingest.OnDeliveries = s.Dispatcher.Nudge
	webhooks := app.NewWebhooks(s.Store, policy, net.DefaultResolver)
	webhooks.OnReplay = s.Dispatcher.Nudge

	var metrics bus.Metrics
	if d.Telemetry != nil {
		m, err := bus.NewPrometheusMetrics(d.Telemetry.Registry)
		if err != nil {
			return nil, err
		}
		metrics = m
	}
	bcfg := cfg.BusConfig()
	if d.Telemetry != nil {
		// Consumer lag (<service>.events) and dead-letter depth on /metrics.
		backlog, err := bus.NewBacklogCollector(bcfg, d.Pool, d.Telemetry.Registry, log, bus.BacklogOptions{})
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, backlog.Close)
	}
	dlq, err := bus.NewDeadLetterPublisher(bcfg, log)
	if err != nil {
		return nil, fmt.Errorf("dead-letter publisher: %w", err)
	}
	s.closers = append(s.closers, dlq.Close)
	s.Consumer = broker.NewEventsConsumer(broker.ConsumerConfig{Bus: bcfg, BatchSize: cfg.ConsumerBatchSize,
		BatchWait: cfg.ConsumerBatchWait, Prefetch: cfg.ConsumerPrefetch}, s.Ingest, dlq, metrics, log)
	s.Consumer.Ping = s.Store.Ping
	s.Progress, err = broker.NewProgressConsumer(bcfg, dlq, metrics, func(p domain.Progress) {
		s.Hub.Publish(p)
		s.Writer.Offer(p)
	}, log)
	if err != nil {
		return nil, fmt.Errorf("progress consumer: %w", err)
	}

	doc, err := specs.OpenAPI(Name)
	if err != nil {
		return nil, err
	}
	e, err := httpx.New(httpx.Options{Service: Name, Logger: log, SpecDocument: doc, Auth: d.Auth, Telemetry: d.Telemetry,
		Ready: s.readiness})
	if err != nil {
		return nil, err
	}
	s.handler = httpapi.New(app.NewQueries(s.Store), webhooks, s.Hub, cfg.SSEKeepAlive)
	httpapi.Register(e, s.handler)
	s.Echo = e
	return s, nil
}

// readiness: the database answers and the consumers are running.
func (s *Service) readiness(ctx context.Context) error {
	if err := s.Store.Ping(ctx); err != nil {
		return err
	}
	select {
	case <-s.ready:
		return nil
	default:
		return errors.New("the consumers are not running yet")
	}
}

// Ready is closed once both consumers consume and job notifications are heard.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run runs every part until ctx ends, serving HTTP on ln (not at all when ln is nil: the
// caller serves Echo); then it stops accepting, lets in-flight requests and the batch in
// hand finish, flushes progress and closes.
func (s *Service) Run(ctx context.Context, ln net.Listener) error {
	defer func() {
		for _, c := range s.closers {
			_ = c()
		}
	}()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.Consumer.Run(gctx) })
	g.Go(func() error { return s.Progress.Run(gctx) })
	g.Go(func() error { return s.Writer.Run(gctx) })
	g.Go(func() error { return s.Dispatcher.Run(gctx) })
	listening := make(chan struct{})
	g.Go(func() error {
		var once sync.Once
		return s.Store.ListenJobs(gctx, s.log, s.Hub.JobsChanged, func() {
			once.Do(func() { close(listening) })
			s.Hub.AllChanged() // notifications sent while not listening are lost
		})
	})
	g.Go(func() error {
		for _, ch := range []<-chan struct{}{s.Consumer.Ready(), s.Progress.Running(), listening} {
			select {
			case <-ch:
			case <-gctx.Done():
				return nil
			}
		}
		close(s.ready)
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		s.handler.EndStreams()
		return nil
	})
	if ln != nil {
		g.Go(func() error { return httpx.ServeListener(gctx, s.Echo, ln, s.log, s.cfg.ShutdownDrain) })
	}
	return g.Wait()
}
