package telemetry

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
)

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request id of the current request (or message).
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id carried by ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// NewRequestID makes a fresh request id (a UUIDv7, so ids sort by time in logs).
func NewRequestID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// NewLogger returns a JSON logger for service whose records carry request_id, trace_id and
// span_id whenever the context passed to the *Context logging methods has them. Durations are
// written in a unit a reader takes in at a glance ("12.35ms", "1.5s"), not as nanoseconds.
func NewLogger(w io.Writer, level slog.Leveler, service string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: humanDurations})
	return slog.New(contextHandler{Handler: h}).With(slog.String("service", service))
}

// humanDurations writes a time.Duration attribute as a string in its natural unit, rounded
// to about four significant digits; the JSON handler alone writes an integer of nanoseconds.
func humanDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, HumanDuration(a.Value.Duration()))
	}
	return a
}

// HumanDuration is d in its natural unit with about four significant digits: 850ns, 12.35µs,
// 12.35ms, 1.235s, 2m5s.
func HumanDuration(d time.Duration) string {
	abs := d.Abs()
	switch {
	case abs >= time.Minute:
		return d.Round(time.Second).String()
	case abs >= 10*time.Second:
		return d.Round(10 * time.Millisecond).String()
	case abs >= time.Second:
		return d.Round(time.Millisecond).String()
	case abs >= 100*time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	case abs >= 10*time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case abs >= time.Millisecond:
		return d.Round(time.Microsecond).String()
	case abs >= 100*time.Microsecond:
		return d.Round(100 * time.Nanosecond).String()
	case abs >= 10*time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}

// contextHandler adds the ids found in the record's context.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if id := RequestID(ctx); id != "" {
			r.AddAttrs(slog.String("request_id", id))
		}
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{Handler: h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{Handler: h.Handler.WithGroup(name)}
}

// ServiceLogger is the JSON logger of a service on stderr at a level named in configuration
// (debug, info, warn, error); an unknown name means info.
func ServiceLogger(service, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return NewLogger(os.Stderr, l, service)
}
