// Package telemetry sets up the three signals every service emits: structured JSON logs
// (log/slog) that carry the request and trace ids, Prometheus metrics, and OpenTelemetry traces.
// Configuration is passed in; the package never reads the environment.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/pkg/buildinfo"
)

// Config selects where traces go. The zero value keeps traces in-process only: spans and trace
// ids exist (and reach logs and event envelopes) but nothing is exported.
type Config struct {
	// OTLPEndpoint is the value of OTEL_EXPORTER_OTLP_ENDPOINT, e.g. "http://otel-collector:4318".
	// Traces are sent to <endpoint>/v1/traces over OTLP/HTTP. Empty: no exporter.
	OTLPEndpoint string
	// ServiceVersion is recorded as the service.version resource attribute when set.
	ServiceVersion string
	// SampleRatio is the fraction of root traces sampled, in (0, 1]; 0 means 1 (sample all).
	// A sampled parent is always followed.
	SampleRatio float64
}

// Telemetry holds the metric registry and tracer provider of one process.
type Telemetry struct {
	// Registry receives every metric of the service; /metrics serves it.
	Registry *prometheus.Registry
	// TracerProvider creates the service's tracers; it is also installed as the otel global.
	TracerProvider *sdktrace.TracerProvider
	// Propagator is the W3C trace-context + baggage propagator, also installed as the otel global.
	Propagator propagation.TextMapPropagator
}

// Setup builds the process's telemetry. It installs the tracer provider and the W3C propagator as
// the OpenTelemetry globals, so libraries instrumented against otel (and pkg/bus) share them.
// Call Shutdown before exit to flush spans.
func Setup(ctx context.Context, service string, cfg Config) (*Telemetry, error) {
	if service == "" {
		return nil, errors.New("telemetry: service name is required")
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, fmt.Errorf("telemetry: register go collector: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, fmt.Errorf("telemetry: register process collector: %w", err)
	}
	if err := reg.Register(buildinfo.Collector()); err != nil {
		return nil, fmt.Errorf("telemetry: register build_info: %w", err)
	}
	if cfg.ServiceVersion == "" {
		cfg.ServiceVersion = buildinfo.Get().Version
	}

	attrs := []attribute.KeyValue{attribute.String("service.name", service)}
	if cfg.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", cfg.ServiceVersion))
	}
	ratio := cfg.SampleRatio
	if ratio <= 0 || ratio > 1 {
		ratio = 1
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
	}
	if cfg.OTLPEndpoint != "" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL(cfg.OTLPEndpoint)))
		if err != nil {
			return nil, fmt.Errorf("telemetry: otlp exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(prop)
	return &Telemetry{Registry: reg, TracerProvider: tp, Propagator: prop}, nil
}

// tracesURL applies the OTLP rule for the generic endpoint variable: the signal path is appended.
func tracesURL(endpoint string) string {
	return strings.TrimSuffix(endpoint, "/") + "/v1/traces"
}

// Tracer returns a named tracer of the service's provider.
func (t *Telemetry) Tracer(name string) trace.Tracer { return t.TracerProvider.Tracer(name) }

// Shutdown flushes and stops the tracer provider.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil || t.TracerProvider == nil {
		return nil
	}
	return t.TracerProvider.Shutdown(ctx)
}
