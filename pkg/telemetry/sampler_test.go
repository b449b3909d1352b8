package telemetry_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/telemetry"
)

func TestTheSamplerFollowsOTELTracesSamplerAndItsArgument(t *testing.T) {
	sampled := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled, Remote: true}))
	unsampled := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{2}, SpanID: trace.SpanID{2}, Remote: true}))
	for _, tc := range []struct {
		sampler, arg                string
		root, underSampled, underNo bool
	}{
		{"", "", true, true, false},
		{"always_on", "", true, true, true},
		{"always_off", "", false, false, false},
		{"ALWAYS_OFF", "", false, false, false},
		{"traceidratio", "0", false, false, false},
		{"traceidratio", "1", true, true, true},
		{"traceidratio", "", true, true, true},
		{"parentbased_always_on", "", true, true, false},
		{"parentbased_always_off", "", false, true, false},
		{"parentbased_traceidratio", "0", false, true, false},
		{"parentbased_traceidratio", "1.0", true, true, false},
	} {
		t.Run(tc.sampler+"/"+tc.arg, func(t *testing.T) {
			c, err := config.Defaults[config.Common]()
			if err != nil {
				t.Fatal(err)
			}
			if tc.sampler != "" {
				c.TracesSampler, c.SamplerArg = tc.sampler, tc.arg
			}
			cfg := telemetry.ConfigOf(c)
			s, err := telemetry.NewSampler(cfg.Sampler, cfg.SamplerArg)
			if err != nil {
				t.Fatal(err)
			}
			tr := sdktrace.NewTracerProvider(sdktrace.WithSampler(s)).Tracer("test")
			for name, tt := range map[string]struct {
				ctx  context.Context
				want bool
			}{"root": {context.Background(), tc.root}, "under a sampled parent": {sampled, tc.underSampled},
				"under an unsampled parent": {unsampled, tc.underNo}} {
				_, span := tr.Start(tt.ctx, "op")
				if got := span.SpanContext().IsSampled(); got != tt.want {
					t.Errorf("%s: sampled = %v, want %v", name, got, tt.want)
				}
				span.End()
			}
		})
	}
}

func TestSetupRefusesAnUnknownSamplerOrArgument(t *testing.T) {
	for _, cfg := range []telemetry.Config{
		{Sampler: "sometimes"},
		{Sampler: "traceidratio", SamplerArg: "half"},
		{Sampler: "parentbased_traceidratio", SamplerArg: "1.5"},
	} {
		if _, err := telemetry.Setup(context.Background(), "svc", cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestSetupWithAlwaysOffRecordsNoSpans(t *testing.T) {
	tel, err := telemetry.Setup(context.Background(), "svc", telemetry.Config{Sampler: "always_off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	_, span := tel.Tracer("test").Start(context.Background(), "op")
	defer span.End()
	if span.SpanContext().IsSampled() || span.IsRecording() {
		t.Fatal("always_off sampled a span")
	}
}

// Without an exporter, spans record nothing but carry what the SDK's spans would: the parent's
// trace id or a new one, a new span id, the sampler's decision and the trace state.
func TestWithoutAnExporterSpansCarryTheSDKsContextButRecordNothing(t *testing.T) {
	ts, err := trace.ParseTraceState("vendor=1")
	if err != nil {
		t.Fatal(err)
	}
	parents := map[string]context.Context{"root": context.Background()}
	for name, flags := range map[string]trace.TraceFlags{"sampled": trace.FlagsSampled, "unsampled": 0} {
		parents["under a "+name+" remote parent"] = trace.ContextWithRemoteSpanContext(context.Background(),
			trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{7},
				TraceFlags: flags, TraceState: ts, Remote: true}))
	}
	for _, sampler := range []string{"", "always_on", "always_off", "parentbased_always_off", "traceidratio"} {
		tel, err := telemetry.Setup(context.Background(), "svc", telemetry.Config{Sampler: sampler})
		if err != nil {
			t.Fatal(err)
		}
		s, err := telemetry.NewSampler(sampler, "")
		if err != nil {
			t.Fatal(err)
		}
		sdk := sdktrace.NewTracerProvider(sdktrace.WithSampler(s)).Tracer("test")
		for name, ctx := range parents {
			for _, opts := range [][]trace.SpanStartOption{nil, {trace.WithNewRoot()}} {
				inner, span := tel.Tracer("test").Start(ctx, "op", opts...)
				_, want := sdk.Start(ctx, "op", opts...) // its sibling, made by the SDK
				got, w := span.SpanContext(), want.SpanContext()
				if span.IsRecording() {
					t.Errorf("%s/%s: the span records", sampler, name)
				}
				if !got.IsValid() || got.IsSampled() != w.IsSampled() || got.TraceState().String() != w.TraceState().String() {
					t.Errorf("%s/%s/%d: span context %v, the SDK's %v", sampler, name, len(opts), got, w)
				}
				newRoot := len(opts) > 0 || name == "root"
				if inherited := got.TraceID() == (trace.TraceID{7}); inherited == newRoot {
					t.Errorf("%s/%s/%d: trace id %s", sampler, name, len(opts), got.TraceID())
				}
				if !trace.SpanContextFromContext(inner).Equal(got) || got.SpanID() == (trace.SpanID{7}) {
					t.Errorf("%s/%s: the context does not hold the new span", sampler, name)
				}
				span.End()
			}
		}
		_ = tel.Shutdown(context.Background())
	}
}
