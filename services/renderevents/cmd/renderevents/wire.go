package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"golang.org/x/sync/errgroup"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/httpapi"
	"github.com/videotpl/platform/services/renderevents/internal/metrics"
	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sender"
	"github.com/videotpl/platform/specs"
)

// openPool opens the database pool (migrating first when MIGRATE_ON_START is set).
func openPool(ctx context.Context, c Config) (*pgxpool.Pool, error) {
	if c.MigrateOnStart {
		if err := pgxdb.Migrate(ctx, c.DatabaseURL, Migrations()...); err != nil {
			return nil, err
		}
	}
	return pgxdb.Open(ctx, c.DatabaseURL, pgxdb.MaxConns(int32(c.DBMaxConns)), pgxdb.BinaryUUIDs)
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
	tel        *telemetry.Telemetry
	Echo       *echo.Echo
	Store      *store.Store
	Ingest     *app.Ingest
	Hub        *app.Hub
	Writer     *app.ProgressWriter
	Dispatcher *app.Dispatcher
	Consumer   *busapi.EventsConsumer
	Progress   *busapi.ProgressConsumer

	handler *httpapi.Handler
	keys    *idempotency.Keys
	closers []func() error
	ready   chan struct{}
}

// NewService builds the service once from its configuration: the store, the use
// cases, the bus consumers and the HTTP server; Run starts it.
func NewService(cfg Config, d Deps) (*Service, error) {
	log := d.Logger
	ring, err := seal.Load(cfg.SealKeys, cfg.Environment.IsDevelopment(), log)
	if err != nil {
		return nil, fmt.Errorf("SEAL_KEYS: %w", err)
	}
	policy, err := egress.ParseAllowList(cfg.OutboundAllow)
	if err != nil {
		return nil, err
	}
	schedule, err := cfg.RetrySchedule()
	if err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, log: log, tel: d.Telemetry, ready: make(chan struct{})}
	s.Store = store.New(d.Pool, ring)
	var (
		relay    app.RelayObserver
		dispatch app.DispatchObserver
	)
	if d.Telemetry != nil {
		r, err := metrics.NewRelay(d.Telemetry.Registry)
		if err != nil {
			return nil, err
		}
		w, err := metrics.NewDispatch(d.Telemetry.Registry)
		if err != nil {
			return nil, err
		}
		relay, dispatch = r, w
	}
	s.Hub = app.NewHub(relay)
	s.Writer = app.NewProgressWriter(s.Store, cfg.ProgressFlushInterval, log)
	s.Dispatcher = app.NewDispatcher(s.Store.ForDispatcher(), sender.New(policy, cfg.WebhookWorkers), app.DispatcherConfig{
		Retry: domain.RetryPolicy{Schedule: schedule}, DisableAfter: cfg.WebhookDisableAfter,
		PollInterval: cfg.WebhookPollInterval, Workers: cfg.WebhookWorkers, Observer: dispatch}, log)
	s.Ingest = app.NewIngest(s.Store)
	s.Ingest.OnDeliveries = s.Dispatcher.Nudge
	webhooks := app.NewWebhooks(s.Store, policy, net.DefaultResolver)
	webhooks.OnReplay = s.Dispatcher.Nudge

	var busMetrics bus.Metrics
	if d.Telemetry != nil {
		m, err := bus.NewPrometheusMetrics(d.Telemetry.Registry)
		if err != nil {
			return nil, err
		}
		busMetrics = m
	}
	bcfg := cfg.BusConfig()
	if d.Telemetry != nil {
		if err := d.Telemetry.Registry.Register(pgxdb.NewPoolCollector(d.Pool)); err != nil {
			return nil, err
		}
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
	s.Consumer, err = busapi.NewEventsConsumer(bcfg, cfg.BatchConfig(), s.Ingest, s.Store.Ping, dlq, busMetrics, log)
	if err != nil {
		return nil, fmt.Errorf("events consumer: %w", err)
	}
	if d.Telemetry != nil {
		if err := s.Consumer.Connection().Register(d.Telemetry.Registry, "events_consumer"); err != nil {
			return nil, err
		}
	}
	s.Progress, err = busapi.NewProgressConsumer(bcfg, busMetrics, func(p domain.Progress) {
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
		Ready: s.readiness, HTTP: cfg.HTTP})
	if err != nil {
		return nil, err
	}
	s.handler = httpapi.New(app.NewQueries(s.Store), webhooks, s.Hub, cfg.SSEKeepAlive)
	httpapi.Register(e, s.handler)
	// Operations that declare the Idempotency-Key header answer retries from the stored keys.
	s.keys = idempotency.New(d.Pool, cfg.KeyOptions(log))
	if err := s.keys.Apply(e, doc); err != nil {
		return nil, err
	}
	s.Echo = e
	return s, nil
}

// readiness: the database answers, the consumers are running and the events consumer has
// not lost the broker for longer than CONSUMER_READY_GRACE (see the README).
func (s *Service) readiness(ctx context.Context) error {
	if err := s.Store.Ping(ctx); err != nil {
		return err
	}
	select {
	case <-s.ready:
		return s.Consumer.Connection().Check(s.cfg.ConsumerReadyGrace)(ctx)
	default:
		return errors.New("the consumers are not running yet")
	}
}

// sealLegacySecrets re-seals signing secrets stored in the clear or in the single-key format
// with the keyring before any delivery is signed.
func (s *Service) sealLegacySecrets(ctx context.Context) error {
	resealed, unreadable, err := s.Store.SealLegacySecrets(ctx)
	if err != nil {
		return err
	}
	if resealed > 0 {
		s.log.Info("re-sealed webhook signing secrets with the keyring", slog.Int("endpoints", resealed))
	}
	if unreadable > 0 {
		s.log.Warn("webhook endpoints hold signing secrets that no key of SEAL_KEYS opens: add the key they were sealed with to SEAL_KEYS",
			slog.Int("endpoints", unreadable))
	}
	return nil
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
	if err := s.sealLegacySecrets(ctx); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.Consumer.Run(gctx) })
	g.Go(func() error { return s.Progress.Run(gctx) })
	g.Go(func() error { return s.Writer.Run(gctx) })
	g.Go(func() error { return s.Dispatcher.Run(gctx) })
	g.Go(func() error { s.keys.RunPurger(gctx, s.cfg.IdempotencyPurgeInterval); return nil })
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
		g.Go(func() error {
			return httpx.ServeListener(gctx, s.Echo, ln, s.log, s.cfg.ShutdownDrain, httpx.WithMetrics(s.cfg.Common, s.tel))
		})
	}
	return g.Wait()
}
