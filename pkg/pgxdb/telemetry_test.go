package pgxdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

func TestQueriesAreSpansOfTheTraceTheyRunIn(t *testing.T) {
	_, url := pgtest.NewDB(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx := context.Background()
	pool, err := pgxdb.Open(ctx, url, func(c *pgxpool.Config) { c.ConnConfig.Tracer = pgxdb.Tracer{Provider: tp} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	var n int
	if err := pool.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil { // no trace: no span
		t.Fatal(err)
	}
	rctx, root := tp.Tracer("test").Start(ctx, "request")
	if err := pool.QueryRow(rctx, "-- name: CountThings :one\nSELECT $1::int", 42).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(rctx, "SELECT * FROM no_such_table"); err == nil {
		t.Fatal("no error from a missing table")
	}
	b := &pgx.Batch{}
	b.Queue("SELECT 1")
	b.Queue("SELECT 2")
	if err := pool.SendBatch(rctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	root.End()

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
	}
	if len(spans) != 4 {
		t.Fatalf("spans %v, want request, CountThings, SELECT and batch", keys(spans))
	}
	named := spans["CountThings"]
	if named == nil || named.Parent().SpanID() != root.SpanContext().SpanID() {
		t.Fatalf("the sqlc query is no child span named after it: %v", keys(spans))
	}
	attrs := map[string]string{}
	for _, a := range named.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["db.system.name"] != "postgresql" || !strings.Contains(attrs["db.query.text"], "SELECT $1::int") ||
		strings.Contains(attrs["db.query.text"], "42") {
		t.Errorf("attributes %v: want the system and the statement, without its arguments", attrs)
	}
	if s := spans["SELECT"]; s == nil || s.Status().Code != codes.Error {
		t.Errorf("the failing query's span is not an error: %v", s)
	}
	if s := spans["batch"]; s == nil || len(s.Events()) != 2 {
		t.Errorf("the batch is not one span with an event per statement: %v", s)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestThePoolCollectorExportsThePoolsStatistics(t *testing.T) {
	pool, _ := pgtest.NewDB(t)
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(pgxdb.NewPoolCollector(pool)); err != nil {
		t.Fatal(err)
	}
	if err := pool.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP db_pool_max_connections Bound on the connections of the database pool (DB_MAX_CONNS).
# TYPE db_pool_max_connections gauge
db_pool_max_connections ` + fmt.Sprint(pool.Config().MaxConns) + "\n"
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "db_pool_max_connections"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"db_pool_acquired_connections", "db_pool_idle_connections", "db_pool_total_connections",
		"db_pool_constructing_connections", "db_pool_acquires_total", "db_pool_acquire_duration_seconds_total",
		"db_pool_empty_acquires_total", "db_pool_empty_acquire_wait_seconds_total", "db_pool_canceled_acquires_total",
		"db_pool_new_connections_total", "db_pool_max_lifetime_destroys_total", "db_pool_max_idle_destroys_total"} {
		if n := testutil.CollectAndCount(reg, name); n != 1 {
			t.Errorf("%s: %d series, want 1", name, n)
		}
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == "db_pool_acquires_total" && f.GetMetric()[0].GetCounter().GetValue() < 1 {
			t.Errorf("db_pool_acquires_total = %v after a ping, want at least 1", f.GetMetric()[0].GetCounter().GetValue())
		}
	}
}
