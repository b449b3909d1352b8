package pgxdb

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName names the database spans in the global tracer provider (telemetry.Setup installs
// the service's).
const tracerName = "github.com/videotpl/platform/pkg/pgxdb"

// maxStatementLen bounds the statement recorded on a span.
const maxStatementLen = 2048

// Tracer makes a client span of every query, batch and COPY run with a context that already
// carries a recording span (a request, a consumed event): the database's part of a trace.
// Work without one (pollers, sweepers) starts no trace of its own, so that they do not flood
// the traces. Spans carry the statement, never its arguments (they may be secrets), and are
// named by the sqlc query name when the statement has one ("-- name: GetJob :one").
// Open installs it on every pool.
type Tracer struct {
	// Provider makes the spans; nil means the otel global provider (telemetry.Setup installs
	// the service's).
	Provider trace.TracerProvider
}

var (
	_ pgx.QueryTracer    = Tracer{}
	_ pgx.BatchTracer    = Tracer{}
	_ pgx.CopyFromTracer = Tracer{}
)

func (t Tracer) start(ctx context.Context, conn *pgx.Conn, name string, attrs ...attribute.KeyValue) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	attrs = append(attrs, attribute.String("db.system.name", "postgresql"))
	if conn != nil {
		attrs = append(attrs, attribute.String("db.namespace", conn.Config().Database))
	}
	tp := t.Provider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	ctx, _ = tp.Tracer(tracerName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

// end ends the span start began (none when the context had no recording span).
func end(ctx context.Context, err error, attrs ...attribute.KeyValue) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrs...)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		span.RecordError(err)
		span.SetStatus(codes.Error, "query failed")
	}
	span.End()
}

// TraceQueryStart implements pgx.QueryTracer.
func (t Tracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	return t.start(ctx, conn, spanName(data.SQL), attribute.String("db.query.text", statement(data.SQL)))
}

// TraceQueryEnd implements pgx.QueryTracer.
func (Tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	end(ctx, data.Err, attribute.Int64("db.response.returned_rows", data.CommandTag.RowsAffected()))
}

// TraceBatchStart implements pgx.BatchTracer.
func (t Tracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	return t.start(ctx, conn, "batch", attribute.Int("db.operation.batch.size", n))
}

// TraceBatchQuery implements pgx.BatchTracer: each statement of the batch is an event.
func (Tracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("db.query.text", statement(data.SQL))}
	if data.Err != nil {
		attrs = append(attrs, attribute.String("error.message", data.Err.Error()))
	}
	span.AddEvent(spanName(data.SQL), trace.WithAttributes(attrs...))
}

// TraceBatchEnd implements pgx.BatchTracer.
func (Tracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	end(ctx, data.Err)
}

// TraceCopyFromStart implements pgx.CopyFromTracer.
func (t Tracer) TraceCopyFromStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	table := data.TableName.Sanitize()
	return t.start(ctx, conn, "COPY "+table, attribute.String("db.collection.name", table))
}

// TraceCopyFromEnd implements pgx.CopyFromTracer.
func (Tracer) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromEndData) {
	end(ctx, data.Err, attribute.Int64("db.response.returned_rows", data.CommandTag.RowsAffected()))
}

// spanName is the sqlc query name of sql ("-- name: GetJob :one" -> "GetJob"), else its first
// keyword ("SELECT"): low-cardinality, as a span name must be.
func spanName(sql string) string {
	s := strings.TrimSpace(sql)
	if rest, ok := strings.CutPrefix(s, "-- name: "); ok {
		if f := firstField(rest); f != "" {
			return f
		}
	}
	for strings.HasPrefix(s, "--") { // other leading comments
		_, s, _ = strings.Cut(s, "\n")
		s = strings.TrimSpace(s)
	}
	if f := firstField(s); f != "" {
		return strings.ToUpper(f)
	}
	return "query"
}

// firstField is strings.Fields(s)[0] ("" when there is none) without splitting the rest of s:
// every statement of a batch is named at each execution, and a long one has hundreds of words.
func firstField(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}

// statement is sql cut to maxStatementLen bytes.
func statement(sql string) string {
	if len(sql) <= maxStatementLen {
		return sql
	}
	return sql[:maxStatementLen] + "…"
}
