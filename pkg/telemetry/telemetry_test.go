package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/videotpl/platform/pkg/telemetry"
)

func TestLoggerAddsRequestAndTraceIDsFromTheContext(t *testing.T) {
	tel, err := telemetry.Setup(context.Background(), "svc", telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	var buf bytes.Buffer
	log := telemetry.NewLogger(&buf, slog.LevelInfo, "content")

	ctx, span := tel.Tracer("test").Start(telemetry.WithRequestID(context.Background(), "req-1"), "op")
	log.With("component", "store").InfoContext(ctx, "hello", "n", 1)
	span.End()
	log.DebugContext(ctx, "filtered out")
	log.Info("no context ids")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %d:\n%s", len(lines), buf.String())
	}
	var first, second map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[1]), &second)
	sc := span.SpanContext()
	if first["request_id"] != "req-1" || first["trace_id"] != sc.TraceID().String() || first["span_id"] != sc.SpanID().String() ||
		first["service"] != "content" || first["component"] != "store" || first["msg"] != "hello" {
		t.Fatalf("first line = %v", first)
	}
	if _, ok := second["request_id"]; ok || second["trace_id"] != nil {
		t.Fatalf("ids without a context: %v", second)
	}
}

func TestSetupWithoutExporterStillMakesTraceIDsAndMetrics(t *testing.T) {
	tel, err := telemetry.Setup(context.Background(), "svc", telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	_, span := tel.Tracer("test").Start(context.Background(), "op")
	defer span.End()
	if !span.SpanContext().IsValid() || !span.SpanContext().IsSampled() {
		t.Fatal("no valid sampled span without an exporter")
	}
	fams, err := tel.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
	}
	if !names["go_goroutines"] || !names["process_start_time_seconds"] {
		t.Fatalf("go/process collectors missing: %v", names)
	}
	carrier := http.Header{}
	ctx, s := otel.Tracer("global").Start(context.Background(), "x")
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(carrier))
	s.End()
	if !strings.HasPrefix(carrier.Get("Traceparent"), "00-") {
		t.Fatalf("global W3C propagator not installed: %v", carrier)
	}
	if telemetry.RequestID(context.Background()) != "" || len(telemetry.NewRequestID()) != 36 {
		t.Fatal("request id helpers")
	}
}

func TestSetupExportsSpansOverOTLPHTTPWhenAnEndpointIsGiven(t *testing.T) {
	var (
		mu    sync.Mutex
		paths []string
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()

	tel, err := telemetry.Setup(context.Background(), "svc", telemetry.Config{OTLPEndpoint: collector.URL + "/", ServiceVersion: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := tel.Tracer("test").Start(context.Background(), "exported")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/v1/traces application/x-protobuf" {
		t.Fatalf("collector saw %v", paths)
	}
}

func TestLoggerWritesDurationsInAHumanUnit(t *testing.T) {
	var buf bytes.Buffer
	log := telemetry.NewLogger(&buf, slog.LevelInfo, "svc")
	log.Info("done", "took", 12345678*time.Nanosecond, slog.Group("retry", slog.Duration("backoff", 1500*time.Millisecond)),
		"count", 3)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line["took"] != "12.35ms" || line["retry"].(map[string]any)["backoff"] != "1.5s" || line["count"] != float64(3) {
		t.Fatalf("line = %s", buf.String())
	}
	for d, want := range map[time.Duration]string{
		850 * time.Nanosecond: "850ns", 12345 * time.Nanosecond: "12.35µs", 123456 * time.Nanosecond: "123.5µs",
		1234567 * time.Nanosecond: "1.235ms", 123456789 * time.Nanosecond: "123.5ms", 12345678901: "12.35s",
		125 * time.Second: "2m5s", 0: "0s",
	} {
		if got := telemetry.HumanDuration(d); got != want {
			t.Errorf("HumanDuration(%d) = %s, want %s", d, got, want)
		}
	}
}
