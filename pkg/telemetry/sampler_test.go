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
