// Package httpx builds the echo server every service runs: request ids, recovery, tracing,
// access logs, metrics, body limits, OpenAPI request validation with authentication, RFC 9457
// problem+json for every error, and the built-in routes /healthz, /readyz, /openapi.yaml and
// /docs. Serve runs it, and /metrics on a listener of its own (WithMetrics).
package httpx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/buildinfo"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/telemetry"
)

// DefaultBodyLimit bounds request bodies unless Options say otherwise (1 MiB).
const DefaultBodyLimit int64 = 1 << 20

// Options configure New.
type Options struct {
	// Service names the service in logs, metrics and the WWW-Authenticate realm.
	Service string
	// Logger receives access logs and internal errors; default slog.Default().
	Logger *slog.Logger
	// SpecDocument is the service's OpenAPI document as written (specs.OpenAPI): /openapi.yaml
	// serves these bytes unchanged and /docs renders them. Required.
	SpecDocument []byte
	// Spec is the parsed contract; requests to its operations are authenticated and validated
	// against it. Nil means SpecDocument parsed.
	Spec *openapi3.T
	// Auth verifies credentials; required when the spec declares security.
	Auth *auth.Authenticator
	// BodyLimit bounds request bodies (DefaultBodyLimit when 0).
	BodyLimit int64
	// OperationBodyLimits overrides BodyLimit by operationId, as the spec writes it (uploads).
	OperationBodyLimits map[string]int64
	// HTTP holds the server's timeouts, the ceiling of schema-derived body limits and the
	// trusted proxies (the shared configuration every service reads); the zero value means the
	// defaults of config.HTTP.
	HTTP config.HTTP
	// Ready reports whether dependencies answer (database, broker); nil means always ready.
	Ready func(ctx context.Context) error
	// Telemetry provides the metric registry and tracer provider; nil uses a private registry
	// and the otel globals.
	Telemetry *telemetry.Telemetry
}

// New returns an echo server with the platform's middleware and built-in routes. Register the
// generated handlers on it.
func New(opts Options) (*echo.Echo, error) {
	if opts.Service == "" {
		return nil, errors.New("httpx: Service is required")
	}
	if len(opts.SpecDocument) == 0 {
		return nil, errors.New("httpx: SpecDocument is required")
	}
	if opts.Spec == nil {
		spec, err := openapi3.NewLoader().LoadFromData(opts.SpecDocument)
		if err != nil {
			return nil, fmt.Errorf("httpx: parse the spec document: %w", err)
		}
		opts.Spec = spec
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.BodyLimit <= 0 {
		opts.BodyLimit = DefaultBodyLimit
	}
	if opts.HTTP == (config.HTTP{}) {
		d, err := config.Defaults[config.HTTP]()
		if err != nil {
			return nil, fmt.Errorf("httpx: %w", err)
		}
		opts.HTTP = d
	}
	extractor, err := ipExtractor(opts.HTTP.TrustedProxies)
	if err != nil {
		return nil, err
	}
	if err := opts.Spec.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("httpx: spec is invalid: %w", err)
	}
	if declaresSecurity(opts.Spec) && opts.Auth == nil {
		return nil, errors.New("httpx: the spec declares security but Auth is nil")
	}
	forRouting := routable(opts.Spec)
	router, err := gorillamux.NewRouter(forRouting)
	if err != nil {
		return nil, fmt.Errorf("httpx: route the spec: %w", err)
	}
	reg, tp, prop := telemetryOf(opts.Telemetry)
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("httpx: metrics: %w", err)
	}
	m.knowStreams(opts.Spec)
	docs, err := newDocs(opts.Spec, opts.SpecDocument)
	if err != nil {
		return nil, fmt.Errorf("httpx: docs page: %w", err)
	}

	limits, err := operationLimits(opts.Spec, opts.BodyLimit, opts.HTTP.MaxBodyLimit, opts.OperationBodyLimits)
	if err != nil {
		return nil, err
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = extractor
	// Serve and ServeListener run e.Server with these bounds (see config.HTTP).
	e.Server.ReadHeaderTimeout = opts.HTTP.ReadHeaderTimeout
	e.Server.WriteTimeout = opts.HTTP.WriteTimeout
	e.Server.IdleTimeout = opts.HTTP.IdleTimeout
	e.HTTPErrorHandler = errorHandler(opts.Service, log, newPathHints(opts.Spec))
	k := &contract{service: opts.Service, routes: newEchoRoutes(forRouting), router: router, auth: opts.Auth,
		bodyLimit: opts.BodyLimit, opLimits: limits, deadlines: newDeadlines(opts.HTTP)}
	// Recovery sits inside observe so that a panic is logged and counted as the 500 it becomes.
	e.Use(requestID(), tracing(tp, prop), observe(log, m), recoverPanics(log), k.middleware)

	// Liveness, and which build answers (so a rollout can be watched pod by pod).
	bi := buildinfo.Get()
	health := map[string]string{"status": "ok", "version": bi.Version, "revision": bi.Revision, "go_version": bi.GoVersion}
	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, health)
	})
	e.GET("/readyz", func(c echo.Context) error {
		if opts.Ready != nil {
			if err := opts.Ready(c.Request().Context()); err != nil {
				// Not ready is an expected state (start-up, a dependency away): one warning.
				log.WarnContext(c.Request().Context(), "not ready", slog.String("error", err.Error()))
				if _, ok := errs.As(err); !ok {
					err = errs.Wrap(errs.Unavailable, "a dependency is not reachable", err)
				}
				return err
			}
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	docs.register(e)
	return e, nil
}

// telemetryOf falls back to a private registry and the otel globals without Telemetry.
func telemetryOf(t *telemetry.Telemetry) (*prometheus.Registry, trace.TracerProvider, propagation.TextMapPropagator) {
	if t != nil {
		return t.Registry, t.TracerProvider, t.Propagator
	}
	return prometheus.NewRegistry(), otel.GetTracerProvider(),
		propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// knownOperations refuses a body limit for an operationId the spec does not have: it would
// never apply, and the uploads it was meant for would get the default limit.
func knownOperations(spec *openapi3.T, limits map[string]int64) error {
	if len(limits) == 0 {
		return nil
	}
	ids := map[string]bool{}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			ids[op.OperationID] = true
		}
	}
	for id := range limits {
		if !ids[id] {
			return fmt.Errorf("httpx: OperationBodyLimits names %q, which is no operationId of the spec", id)
		}
	}
	return nil
}

// ipExtractor reads the client's address from X-Forwarded-For only when the connection comes
// from one of the trusted proxies (comma-separated CIDRs); otherwise the peer of the socket is
// the client, whatever X-Forwarded-For, X-Real-IP or Forwarded say.
func ipExtractor(trusted string) (echo.IPExtractor, error) {
	var opts []echo.TrustOption
	for _, s := range strings.Split(trusted, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		_, ipnet, err := net.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("httpx: TRUSTED_PROXIES: %q is not a CIDR range (e.g. 10.0.0.0/8)", s)
		}
		opts = append(opts, echo.TrustIPRange(ipnet))
	}
	if len(opts) == 0 {
		return echo.ExtractIPDirect(), nil
	}
	opts = append(opts, echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false))
	return echo.ExtractIPFromXFFHeader(opts...), nil
}

func declaresSecurity(spec *openapi3.T) bool {
	return spec.Components != nil && len(spec.Components.SecuritySchemes) > 0
}

// ServeOption adds a server that Serve starts and stops with the API's.
type ServeOption func(*serveOptions)

type serveOptions struct {
	metricsAddr string
	metrics     http.Handler
}

// WithMetrics serves the Prometheus metrics of t (build_info, the Go runtime, HTTP, bus...) at
// /metrics on c.MetricsAddr (METRICS_ADDR), a port apart from the API's: the API's ingress
// never exposes them and scrapes never queue behind API requests. Nothing is served when
// c.MetricsEnabled is false.
func WithMetrics(c config.Common, t *telemetry.Telemetry) ServeOption {
	return func(o *serveOptions) {
		if !c.MetricsEnabled {
			return
		}
		reg, _, _ := telemetryOf(t)
		o.metricsAddr, o.metrics = c.MetricsAddr, MetricsHandler(reg)
	}
}

// MetricsHandler answers GET /metrics with reg's metrics and 404 to anything else.
func MetricsHandler(reg prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// Serve listens on addr and serves e until ctx is cancelled; then it stops accepting, lets
// in-flight requests finish for up to drain, closes what is left and returns.
func Serve(ctx context.Context, e *echo.Echo, addr string, log *slog.Logger, drain time.Duration, opts ...ServeOption) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("httpx: listen %s: %w", addr, err)
	}
	return ServeListener(ctx, e, ln, log, drain, opts...)
}

// ServeListener is Serve on an open listener (which it closes). The servers opts add listen
// first (a port in use fails the start), serve while the API drains, and stop after it.
func ServeListener(ctx context.Context, e *echo.Echo, ln net.Listener, log *slog.Logger, drain time.Duration, opts ...ServeOption) error {
	var o serveOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.metrics != nil {
		mln, err := net.Listen("tcp", o.metricsAddr)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("httpx: listen %s (METRICS_ADDR): %w", o.metricsAddr, err)
		}
		msrv := &http.Server{Handler: o.metrics, ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		mserved := make(chan struct{})
		go func() { _ = msrv.Serve(mln); close(mserved) }() // http.ErrServerClosed once closed
		log.InfoContext(ctx, "serving metrics", slog.String("addr", mln.Addr().String()))
		defer func() {
			_ = msrv.Close()
			<-mserved
		}()
	}
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: e.Server.ReadHeaderTimeout,
		WriteTimeout:      e.Server.WriteTimeout,
		IdleTimeout:       e.Server.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.InfoContext(ctx, "listening", slog.String("addr", ln.Addr().String()))

	select {
	case err := <-served:
		return fmt.Errorf("httpx: serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests", slog.Duration("drain", drain))
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drain)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		log.Warn("drain time over: closing remaining connections", slog.String("error", err.Error()))
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("httpx: serve: %w", err)
	}
	return nil
}
