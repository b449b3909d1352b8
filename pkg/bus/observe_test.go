package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
)

func TestHandlerAttemptsAreCountedAndTimedByEventTypeAndOutcome(t *testing.T) {
	cfg := bus.Config{Service: "inproc", Retry: bus.RetryConfig{MaxRetries: -1}}
	log := testLogger(t)
	gc := bus.NewGoChannel(log)
	t.Cleanup(func() { _ = gc.Close() })
	reg := prometheus.NewRegistry()
	m, err := bus.NewPrometheusMetrics(reg, bus.WithEventTypes("test.ok.v1", "test.fail.v1"))
	if err != nil {
		t.Fatal(err)
	}
	router, err := bus.NewRouter(cfg, gc, m, log)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 2)
	bus.Consume(router, "inproc", gc, bus.Handlers{
		"test.ok.v1":   func(context.Context, events.EventEnvelope) error { done <- struct{}{}; return nil },
		"test.fail.v1": func(context.Context, events.EventEnvelope) error { done <- struct{}{}; return errors.New("boom") },
	})
	runRouter(t, router)
	for _, et := range []string{"test.ok.v1", "test.fail.v1"} {
		if err := bus.PublishEvents(context.Background(), gc, envelope(t, et, map[string]any{})); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s not handled", et)
		}
	}
	eventually(t, 5*time.Second, "attempts observed", func() bool {
		return testutil.CollectAndCount(reg, "bus_message_handling_duration_seconds") == 2
	})
	for _, c := range []struct{ metric, eventType string }{
		{"bus_messages_handled_total", "test.ok.v1"},
		{"bus_messages_failed_total", "test.fail.v1"},
		{"bus_messages_dead_lettered_total", "test.fail.v1"},
	} {
		eventually(t, 5*time.Second, c.metric+" of "+c.eventType, func() bool {
			return counterValue(t, reg, c.metric, "event_type", c.eventType) == 1
		})
	}
	if n := histogramCount(t, reg, "bus_message_handling_duration_seconds", "test.fail.v1", bus.OutcomeError); n != 1 {
		t.Errorf("timed failed attempts of test.fail.v1 = %d, want 1", n)
	}
	if n := histogramCount(t, reg, "bus_message_handling_duration_seconds", "test.ok.v1", bus.OutcomeOK); n != 1 {
		t.Errorf("timed successful attempts of test.ok.v1 = %d, want 1", n)
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func histogramCount(t *testing.T, reg *prometheus.Registry, name, eventType, outcome string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["event_type"] == eventType && labels["outcome"] == outcome {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}
