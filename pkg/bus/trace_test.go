package bus_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/pkg/telemetry"
)

const thingsSpec = `
openapi: 3.0.3
info: {title: things, version: 1.0.0}
paths:
  /things:
    post:
      operationId: createThing
      responses:
        '202': {description: accepted}
`

// consumed is what the consumer saw of one event.
type consumed struct {
	ctxTrace trace.TraceID
	env      events.EventEnvelope
}

func TestARequestAndTheEventItPublishesThroughTheOutboxShareOneTrace(t *testing.T) {
	ctx := context.Background()
	tel, err := telemetry.Setup(ctx, "bustest", telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Spans are recorded only for an exporter: here, a recorder.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	tel.TracerProvider = tp
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })

	cfg := bustest.Config(t)
	log := testLogger(t)
	pool, _ := pgtest.NewDB(t, bus.Migrations())

	// The consuming side: the service queue, a router with the bus's middleware.
	got := make(chan consumed, 1)
	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dlq.Close() })
	router, err := bus.NewRouter(cfg, dlq, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := bus.NewSubscriber(cfg, log, "test.thing.#")
	if err != nil {
		t.Fatal(err)
	}
	bus.Consume(router, cfg.Service, sub, bus.Handlers{
		"test.thing.created.v1": func(ctx context.Context, env events.EventEnvelope) error {
			got <- consumed{ctxTrace: trace.SpanContextFromContext(ctx).TraceID(), env: env}
			return nil
		},
	})
	runRouter(t, router)

	// The publishing side: forwarder to the broker, and an HTTP handler writing the outbox.
	pub := publisher(t, cfg)
	runForwarder(t, cfg, pool, pub)

	e, err := httpx.New(httpx.Options{Service: "bustest", Logger: log, SpecDocument: []byte(thingsSpec), Telemetry: tel})
	if err != nil {
		t.Fatal(err)
	}
	handlerTrace := make(chan trace.TraceID, 1)
	e.POST("/things", func(c echo.Context) error {
		rctx := c.Request().Context()
		handlerTrace <- trace.SpanContextFromContext(rctx).TraceID()
		env, err := bus.NewEnvelope("test.thing.created.v1", uuid.New(), map[string]string{"name": "a"})
		if err != nil {
			return err
		}
		if err := pgxdb.WithTx(rctx, pool, func(tx pgx.Tx) error { return bus.PublishEventsInTx(rctx, tx, env) }); err != nil {
			return err
		}
		return c.NoContent(http.StatusAccepted)
	})
	base := httpxtest.Start(t, e)

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	req, err := http.NewRequest(http.MethodPost, base+"/things", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /things = %d, want 202", resp.StatusCode)
	}
	if h := <-handlerTrace; h.String() != traceID {
		t.Fatalf("handler trace = %s, want the caller's %s", h, traceID)
	}

	var c consumed
	select {
	case c = <-got:
	case <-time.After(15 * time.Second):
		t.Fatal("the event did not reach the consumer")
	}
	if c.ctxTrace.String() != traceID {
		t.Errorf("consumer context trace = %s, want the request's %s", c.ctxTrace, traceID)
	}
	if c.env.TraceID == nil || strings.ReplaceAll(c.env.TraceID.String(), "-", "") != traceID {
		t.Errorf("envelope trace_id = %v, want the request's %s", c.env.TraceID, traceID)
	}

	// The consumer span is a child of the server span of the request.
	var server, consumer sdkSpan
	eventually(t, 5*time.Second, "consumer span ended", func() bool {
		server, consumer = sdkSpan{}, sdkSpan{}
		for _, s := range spans.Ended() {
			switch {
			case s.SpanKind() == trace.SpanKindServer && s.Name() == "POST /things":
				server = sdkSpan{s.SpanContext(), s.Parent(), true}
			case s.SpanKind() == trace.SpanKindConsumer && s.Name() == "consume test.thing.created.v1":
				consumer = sdkSpan{s.SpanContext(), s.Parent(), true}
			}
		}
		return server.ok && consumer.ok
	})
	if consumer.ctx.TraceID() != server.ctx.TraceID() || consumer.parent.SpanID() != server.ctx.SpanID() {
		t.Errorf("consumer span %s (parent %s) is not a child of the request span %s",
			consumer.ctx.SpanID(), consumer.parent.SpanID(), server.ctx.SpanID())
	}
}

type sdkSpan struct {
	ctx, parent trace.SpanContext
	ok          bool
}
