package bus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
)

func TestADeadLetterReasonIsOneBoundedLineNamingEachPrefixOnce(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	router, sub := queueRouter(t, cfg, nil, []string{"test.#"})
	invalid := errors.New("invalid event: data.progress: must be at most 100\ndata.step:\tis required\x00")
	bus.Consume(router, "reasons", sub, bus.Handlers{
		"test.wrapped.v1": func(context.Context, events.EventEnvelope) error {
			return bus.Permanent(fmtWrap("invalid event", invalid))
		},
		"test.long.v1": func(context.Context, events.EventEnvelope) error {
			return bus.Permanent(errors.New(strings.Repeat("é", 3000)))
		},
		"test.panics.v1": func(context.Context, events.EventEnvelope) error { panic("line one\nline two") },
	})
	runRouter(t, router)
	sent := map[string]events.EventEnvelope{}
	for _, et := range []string{"test.wrapped.v1", "test.long.v1", "test.panics.v1"} {
		sent[et] = envelope(t, et, map[string]any{})
		bustest.Publish(t, cfg, sent[et])
	}
	dead := byMessageID(bustest.Read(t, bustest.Channel(t), cfg.DeadLetterQueue(), len(sent), 20*time.Second))
	reason := func(et string) string {
		d, ok := dead[sent[et].EventID.String()]
		if !ok {
			t.Fatalf("%s not dead-lettered", et)
		}
		r, _ := d.Headers[bus.MetaDeadLetterReason].(string)
		return r
	}
	const want = "invalid event: data.progress: must be at most 100; data.step: is required"
	if r := reason("test.wrapped.v1"); r != want {
		t.Errorf("reason %q, want %q", r, want)
	}
	if r := reason("test.long.v1"); len(r) > 1024 || !strings.HasSuffix(r, "…") || !strings.HasPrefix(r, "éé") {
		t.Errorf("a long reason is %d bytes (%q...), want at most 1024 ending in …", len(r), r[:min(len(r), 20)])
	}
	for et := range sent {
		if r := reason(et); strings.ContainsFunc(r, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			t.Errorf("%s: reason %q carries a control character", et, r)
		}
	}
	if r := reason("test.panics.v1"); !strings.Contains(r, "line one") || len(r) > 1024 {
		t.Errorf("panic reason %q does not name the panic in at most 1024 bytes", r)
	}
}
