// Package httpx builds the echo server every service runs: request ids, recovery, tracing,
// access logs, metrics, body limits, OpenAPI request validation with authentication, RFC 9457
// problem+json for every error, and the built-in routes /healthz, /readyz, /metrics,
// /openapi.yaml and /docs.
package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/oasdiff/yaml"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/pkg/auth"
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
	// Spec is the embedded contract (gen/<svc>.GetSwagger()); requests to its operations are
	// authenticated and validated against it.
	Spec *openapi3.T
	// Auth verifies credentials; required when the spec declares security.
	Auth *auth.Authenticator
	// BodyLimit bounds request bodies (DefaultBodyLimit when 0).
	BodyLimit int64
	// OperationBodyLimits overrides BodyLimit by operationId (uploads).
	OperationBodyLimits map[string]int64
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
	if opts.Spec == nil {
		return nil, errors.New("httpx: Spec is required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.BodyLimit <= 0 {
		opts.BodyLimit = DefaultBodyLimit
	}
	if err := opts.Spec.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("httpx: spec is invalid: %w", err)
	}
	if declaresSecurity(opts.Spec) && opts.Auth == nil {
		return nil, errors.New("httpx: the spec declares security but Auth is nil")
	}
	router, err := NewRouter(opts.Spec)
	if err != nil {
		return nil, fmt.Errorf("httpx: route the spec: %w", err)
	}
	reg, tp, prop := telemetryOf(opts.Telemetry)
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("httpx: metrics: %w", err)
	}
	specYAML, err := specAsYAML(opts.Spec)
	if err != nil {
		return nil, fmt.Errorf("httpx: render spec: %w", err)
	}
	docs, err := renderDocs(opts.Spec)
	if err != nil {
		return nil, fmt.Errorf("httpx: render docs: %w", err)
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(opts.Service, log)
	k := &contract{service: opts.Service, router: router, auth: opts.Auth,
		bodyLimit: opts.BodyLimit, opLimits: opts.OperationBodyLimits}
	// Recovery sits inside observe so that a panic is logged and counted as the 500 it becomes.
	e.Use(requestID(), tracing(tp, prop), observe(log, m), recoverPanics(log), k.middleware)

	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	e.GET("/readyz", func(c echo.Context) error {
		if opts.Ready != nil {
			if err := opts.Ready(c.Request().Context()); err != nil {
				if _, ok := errs.As(err); !ok {
					log.WarnContext(c.Request().Context(), "not ready", slog.String("error", err.Error()))
					err = errs.Wrap(errs.Unavailable, "a dependency is not reachable", err)
				}
				return err
			}
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	e.GET("/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml", specYAML)
	})
	e.GET("/docs", func(c echo.Context) error {
		return c.HTMLBlob(http.StatusOK, docs)
	})
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

func declaresSecurity(spec *openapi3.T) bool {
	return spec.Components != nil && len(spec.Components.SecuritySchemes) > 0
}

func specAsYAML(spec *openapi3.T) ([]byte, error) {
	j, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// Serve listens on addr and serves e until ctx is cancelled; then it stops accepting, lets
// in-flight requests finish for up to drain, closes what is left and returns.
func Serve(ctx context.Context, e *echo.Echo, addr string, log *slog.Logger, drain time.Duration) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("httpx: listen %s: %w", addr, err)
	}
	return ServeListener(ctx, e, ln, log, drain)
}

// ServeListener is Serve on an open listener (which it closes).
func ServeListener(ctx context.Context, e *echo.Echo, ln net.Listener, log *slog.Logger, drain time.Duration) error {
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
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
