// Package telemetry sets up the three signals every service emits: structured JSON logs
// (log/slog) that carry the request and trace ids, Prometheus metrics, and OpenTelemetry traces.
// Configuration is passed in; the package never reads the environment.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
// ids exist (and reach logs, event envelopes and outgoing traceparent headers) but nothing is
// recorded or exported.
type Config struct {
	// OTLPEndpoint is the value of OTEL_EXPORTER_OTLP_ENDPOINT, e.g. "http://otel-collector:4318".
	// Traces are sent to <endpoint>/v1/traces over OTLP/HTTP. Empty: no exporter.
	OTLPEndpoint string
	// ServiceVersion is recorded as the service.version resource attribute when set.
	ServiceVersion string
	// Sampler is the value of OTEL_TRACES_SAMPLER: always_on, always_off, traceidratio,
	// parentbased_always_on, parentbased_always_off or parentbased_traceidratio. Empty means
	// parentbased_always_on (a root trace is sampled, a child follows its parent's decision).
	Sampler string
	// SamplerArg is the value of OTEL_TRACES_SAMPLER_ARG: the sampled fraction in [0, 1] of
	// the two traceidratio samplers (empty: 1). The other samplers take no argument.
	SamplerArg string
}

// Telemetry holds the metric registry and tracer provider of one process.
type Telemetry struct {
	// Registry receives every metric of the service; /metrics serves it.
	Registry *prometheus.Registry
	// TracerProvider creates the service's tracers; it is also installed as the otel global.
	// With an exporter it is the OpenTelemetry SDK's; without one its spans carry ids and the
	// sampler's decision but record nothing.
	TracerProvider trace.TracerProvider
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
	sampler, err := NewSampler(cfg.Sampler, cfg.SamplerArg)
	if err != nil {
		return nil, err
	}
	var tp trace.TracerProvider = idsProvider{sampler: sampler}
	if cfg.OTLPEndpoint != "" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL(cfg.OTLPEndpoint)))
		if err != nil {
			return nil, fmt.Errorf("telemetry: otlp exporter: %w", err)
		}
		tp = sdktrace.NewTracerProvider(
			sdktrace.WithResource(resource.NewSchemaless(attrs...)),
			sdktrace.WithSampler(sampler),
			sdktrace.WithBatcher(exp),
		)
	}
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(prop)
	return &Telemetry{Registry: reg, TracerProvider: tp, Propagator: prop}, nil
}

// NewSampler is the sampler named by OTEL_TRACES_SAMPLER (name) with OTEL_TRACES_SAMPLER_ARG
// (arg), as the OpenTelemetry specification defines them; an empty name is
// parentbased_always_on. A name or argument it does not know is an error rather than a silent
// default, so a typo cannot turn tracing off or on for a whole fleet.
func NewSampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := func() (float64, error) {
		if strings.TrimSpace(arg) == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(arg), 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER_ARG is %q, want a fraction between 0 and 1", arg)
		}
		return r, nil
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		return sdktrace.TraceIDRatioBased(r), nil
	case "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
	}
	return nil, fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER is %q, want always_on, always_off, traceidratio, "+
		"parentbased_always_on, parentbased_always_off or parentbased_traceidratio", name)
}

// tracesURL applies the OTLP rule for the generic endpoint variable: the signal path is appended.
func tracesURL(endpoint string) string {
	return strings.TrimSuffix(endpoint, "/") + "/v1/traces"
}

// Tracer returns a named tracer of the service's provider.
func (t *Telemetry) Tracer(name string) trace.Tracer { return t.TracerProvider.Tracer(name) }

// Shutdown flushes and stops the tracer provider (the exporter's last spans are sent).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if tp, ok := t.TracerProvider.(interface{ Shutdown(context.Context) error }); ok {
		return tp.Shutdown(ctx)
	}
	return nil
}
