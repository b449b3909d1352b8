package httpx_test

import (
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/videotpl/platform/pkg/httpx"
)

func TestEventStreamsHaveConnectionMetricsInsteadOfRequestLatency(t *testing.T) {
	f := newServer(t, nil)
	before := do(t, "GET", f.metricsURL+"/metrics", "", "", "").body
	for _, want := range []string{`sse_connections_open{route="/v1/things/:id/events"} 0`,
		`sse_connections_total{route="/v1/things/:id/events"} 0`} {
		if !strings.Contains(before, want) {
			t.Fatalf("the spec's stream is not exported at zero: no %s in\n%s", want, before)
		}
	}
	if r := do(t, "GET", f.url+"/x/stream", "", "", ""); r.status != 200 || !strings.Contains(r.body, "data: 2") {
		t.Fatalf("stream %d %q", r.status, r.body)
	}
	do(t, "GET", f.url+"/x/errs/3", "", "", "")
	after := do(t, "GET", f.metricsURL+"/metrics", "", "", "").body
	for _, want := range []string{`sse_connections_total{route="/x/stream"} 1`, `sse_connections_open{route="/x/stream"} 0`,
		`sse_connection_duration_seconds_count{route="/x/stream"} 1`,
		`http_requests_total{method="GET",route="/x/stream",status="200"} 1`,
		`http_request_duration_seconds_count{method="GET",route="/x/errs/:kind"`} {
		if !strings.Contains(after, want) {
			t.Errorf("no %s", want)
		}
	}
	if strings.Contains(after, `http_request_duration_seconds_count{method="GET",route="/x/stream"`) {
		t.Error("the stream is in the request latency histogram")
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", after)
	}
}

func TestProbesAndScrapesAreNotTraced(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	f := newServer(t, func(o *httpx.Options) {
		o.Telemetry.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	})
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/v1/public"} {
		do(t, "GET", f.url+path, "", "", "")
	}
	var names []string
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
	}
	if len(names) != 1 || names[0] != "GET /v1/public" {
		t.Fatalf("spans %v, want only GET /v1/public", names)
	}
}
