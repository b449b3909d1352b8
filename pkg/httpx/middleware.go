package httpx

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/pkg/telemetry"
)

// HeaderRequestID carries the request id in both directions.
const HeaderRequestID = "X-Request-Id"

// requestID adopts a well-formed incoming X-Request-Id or makes one, echoes it in the response
// and puts it in the request context for logs.
func requestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			id := req.Header.Get(HeaderRequestID)
			if !validRequestID(id) {
				id = telemetry.NewRequestID()
			}
			c.Response().Header().Set(HeaderRequestID, id)
			c.SetRequest(req.WithContext(telemetry.WithRequestID(req.Context(), id)))
			return next(c)
		}
	}
}

// validRequestID accepts up to 128 visible ASCII characters, so a client cannot inject log lines.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= 0x20 || id[i] >= 0x7f || id[i] == '"' || id[i] == '\\' {
			return false
		}
	}
	return true
}

// tracing starts the server span, continuing a trace from traceparent when present.
func tracing(tp trace.TracerProvider, prop propagation.TextMapPropagator) echo.MiddlewareFunc {
	tracer := tp.Tracer("github.com/videotpl/platform/pkg/httpx")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			ctx := prop.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
			route := routeLabel(c)
			ctx, span := tracer.Start(ctx, req.Method+" "+route,
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(
					attribute.String("http.request.method", req.Method),
					attribute.String("http.route", route),
					attribute.String("url.path", req.URL.Path),
				))
			defer span.End()
			c.SetRequest(req.WithContext(ctx))
			err := next(c)
			status := c.Response().Status
			if err != nil {
				// observe (inside) has already rendered errors; this only sees errors escaping it.
				span.RecordError(err)
			}
			span.SetAttributes(attribute.Int("http.response.status_code", status))
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
			return err
		}
	}
}

// routeLabel is the route template of the request, never the raw path (bounded cardinality).
func routeLabel(c echo.Context) string {
	if routed(c) {
		return c.Path()
	}
	return "unmatched"
}

var (
	notFoundHandler         = reflect.ValueOf(echo.NotFoundHandler).Pointer()
	methodNotAllowedHandler = reflect.ValueOf(echo.MethodNotAllowedHandler).Pointer()
)

// routed reports whether echo's router matched a registered route: otherwise it leaves its
// not-found or method-not-allowed handler in the context.
func routed(c echo.Context) bool {
	h := c.Handler()
	if h == nil || c.Path() == "" {
		return false
	}
	p := reflect.ValueOf(h).Pointer()
	return p != notFoundHandler && p != methodNotAllowedHandler
}

type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total",
			Help: "HTTP requests served, by route template, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by route template, method and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method", "status"}),
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	return m, nil
}

// register reuses an identical collector already in reg, so two servers may share a registry.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, err
	}
	return c, nil
}

// quietPaths are probed constantly; their access log lines go to debug.
var quietPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// observe renders the error of the request (so status is final), then writes the access log line
// and the metrics.
func observe(log *slog.Logger, m *metrics) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			elapsed := time.Since(start)
			route := routeLabel(c)
			status := strconv.Itoa(res.Status)
			m.requests.WithLabelValues(route, req.Method, status).Inc()
			m.latency.WithLabelValues(route, req.Method, status).Observe(elapsed.Seconds())

			level := slog.LevelInfo
			switch {
			case quietPaths[req.URL.Path] && (res.Status < 500 || res.Status == http.StatusServiceUnavailable):
				level = slog.LevelDebug // a probe's 503 is logged once, as "not ready"
			case res.Status >= 500:
				level = slog.LevelError
			}
			log.LogAttrs(req.Context(), level, "http request",
				slog.String("method", req.Method),
				slog.String("route", route),
				slog.String("path", req.URL.Path),
				slog.Int("status", res.Status),
				slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000),
				slog.Int64("bytes_out", res.Size),
				slog.String("remote_ip", c.RealIP()),
			)
			return nil
		}
	}
}

// recoverPanics turns a panic into a 500 whose body carries nothing of the panic; the value and
// stack go to the log.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				if err, ok := r.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					panic(r) // the handler asked net/http to abort the connection
				}
				log.ErrorContext(c.Request().Context(), "panic in handler",
					slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
				err = fmt.Errorf("panic: %v", r) // not an *errs.Error: rendered as a generic 500
			}()
			return next(c)
		}
	}
}
