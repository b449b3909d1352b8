package httpx

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
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

// tracing starts the server span, continuing a trace from traceparent when present. Probes
// and scrapes (quietPaths) are not traced: they would outnumber every other trace and tell
// nothing.
func tracing(tp trace.TracerProvider, prop propagation.TextMapPropagator) echo.MiddlewareFunc {
	tracer := tp.Tracer("github.com/videotpl/platform/pkg/httpx")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if quietPaths[req.URL.Path] {
				return next(c)
			}
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
	// Event streams (text/event-stream responses) last as long as the client listens: they
	// have metrics of their own instead of distorting the request latency.
	streamsOpen     *prometheus.GaugeVec
	streamsTotal    *prometheus.CounterVec
	streamsDuration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total",
			Help: "HTTP requests served, by route template, method and status (event streams included).",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by route template, method and status; event streams are not included (see sse_connection_duration_seconds).",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method", "status"}),
		streamsOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "sse_connections_open",
			Help: "Server-sent event streams open now, by route template.",
		}, []string{"route"}),
		streamsTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sse_connections_total",
			Help: "Server-sent event streams opened, by route template.",
		}, []string{"route"}),
		streamsDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sse_connection_duration_seconds",
			Help:    "How long a server-sent event stream stayed open, by route template.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600},
		}, []string{"route"}),
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	if m.streamsOpen, err = register(reg, m.streamsOpen); err != nil {
		return nil, err
	}
	if m.streamsTotal, err = register(reg, m.streamsTotal); err != nil {
		return nil, err
	}
	if m.streamsDuration, err = register(reg, m.streamsDuration); err != nil {
		return nil, err
	}
	return m, nil
}

// knowStreams exports the stream metrics of the spec's event-stream operations at zero, so a
// dashboard sees 0 before the first client rather than no series. The routes are mounted
// under the path of the spec's first server (/v1), as the services register them.
func (m *metrics) knowStreams(spec *openapi3.T) {
	base := ""
	if len(spec.Servers) > 0 {
		base = strings.TrimSuffix(serverPath(spec.Servers[0].URL), "/")
	}
	for path, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if streams(op) {
				route := base + echoRoute(path)
				m.streamsOpen.WithLabelValues(route)
				m.streamsTotal.WithLabelValues(route)
			}
		}
	}
}

// echoRoute is the route template echo reports (c.Path()) for an OpenAPI path: /jobs/{id}
// is /jobs/:id.
func echoRoute(path string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			segs[i] = ":" + seg[1:len(seg)-1]
		}
	}
	return strings.Join(segs, "/")
}

// isEventStream reports whether a response's Content-Type is text/event-stream.
func isEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(h.Get(echo.HeaderContentType))), "text/event-stream")
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
			route := routeLabel(c)
			// A response that starts as an event stream is counted open from its header on,
			// and closed even when its handler panics the connection away.
			stream := false
			c.Response().Before(func() {
				if isEventStream(c.Response().Header()) {
					stream = true
					m.streamsOpen.WithLabelValues(route).Inc()
					m.streamsTotal.WithLabelValues(route).Inc()
				}
			})
			defer func() {
				if stream {
					m.streamsOpen.WithLabelValues(route).Dec()
					m.streamsDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
				}
			}()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			elapsed := time.Since(start)
			status := strconv.Itoa(res.Status)
			m.requests.WithLabelValues(route, req.Method, status).Inc()
			if !stream {
				m.latency.WithLabelValues(route, req.Method, status).Observe(elapsed.Seconds())
			}

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
