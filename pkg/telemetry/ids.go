package telemetry

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// idsProvider is the tracer provider of a process that exports no traces. Its spans carry what
// leaves the process (trace and span ids, the sampler's decision in the sampled flag, the
// trace state) into logs, event envelopes and outgoing traceparent headers, exactly as recorded
// spans would, but record nothing: no attributes, events or timings that no one would read.
// Work that only traces a recording parent (pgxdb's statement spans) is skipped under them.
type idsProvider struct {
	noop.TracerProvider
	sampler sdktrace.Sampler
}

func (p idsProvider) Tracer(string, ...trace.TracerOption) trace.Tracer {
	return idsTracer{sampler: p.sampler}
}

type idsTracer struct {
	noop.Tracer
	sampler sdktrace.Sampler
}

// Start makes a span the way the OpenTelemetry SDK does (a child keeps its parent's trace id; a
// root, or a span started WithNewRoot, gets a new one; the sampler decides the sampled flag and
// the trace state), without recording it.
func (t idsTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	cfg := trace.NewSpanStartConfig(opts...)
	parentCtx := ctx
	if cfg.NewRoot() {
		parentCtx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	}
	parent := trace.SpanContextFromContext(parentCtx)
	tid := parent.TraceID()
	if !parent.IsValid() {
		tid = newTraceID()
	}
	res := t.sampler.ShouldSample(sdktrace.SamplingParameters{
		ParentContext: parentCtx, TraceID: tid, Name: name, Kind: cfg.SpanKind(),
		Attributes: cfg.Attributes(), Links: cfg.Links(),
	})
	flags := parent.TraceFlags() &^ trace.FlagsSampled
	if res.Decision == sdktrace.RecordAndSample {
		flags |= trace.FlagsSampled
	}
	span := idsSpan{sc: trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: newSpanID(), TraceFlags: flags, TraceState: res.Tracestate,
	})}
	return trace.ContextWithSpan(ctx, span), span
}

// idsSpan is a span that only carries its context.
type idsSpan struct {
	noop.Span
	sc trace.SpanContext
}

func (s idsSpan) SpanContext() trace.SpanContext { return s.sc }

func newTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:8], rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}
