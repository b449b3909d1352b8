package bus_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
)

func TestTheEventTypeLabelTakesOnlyCatalogueNamesAndFailuresStartAtZero(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := bus.NewPrometheusMetrics(reg, bus.WithEventTypes("content.svg_preview.generate.v1"))
	if err != nil {
		t.Fatal(err)
	}
	zero := counterValues(t, reg)
	for _, key := range []string{
		`bus_messages_failed_total{event_type="render.job.completed.v1"}`,
		`bus_messages_dead_lettered_total{event_type="identity.user.registered.v1"}`,
		`bus_messages_failed_total{event_type="content.svg_preview.generate.v1"}`,
		`bus_messages_dead_lettered_total{event_type="other"}`,
		`bus_messages_dropped_total{event_type="render.job.progress.v1"}{reason="invalid_payload"}`,
		`bus_messages_dropped_total{event_type="other"}{reason="invalid_envelope"}`,
	} {
		if v, ok := zero[key]; !ok || v != 0 {
			t.Errorf("%s = %v (exported %v), want 0 from the start", key, v, ok)
		}
	}
	if _, ok := zero[`bus_messages_dropped_total{event_type="render.job.completed.v1"}{reason="failed"}`]; ok {
		t.Error("a durable event is exported as droppable")
	}

	m.Handled(events.RenderJobCompletedV1)
	m.Handled("render.job.completed.v1'); DROP TABLE")
	m.Failed("")
	m.DeadLettered("content.svg_preview.generate.v1")
	m.Dropped("x.y.z", bus.DropFailed)
	m.ObserveDuration("anything.else", bus.OutcomeOK, time.Millisecond)
	got := counterValues(t, reg)
	for key, want := range map[string]float64{
		`bus_messages_handled_total{event_type="render.job.completed.v1"}`:               1,
		`bus_messages_handled_total{event_type="other"}`:                                 1,
		`bus_messages_failed_total{event_type="other"}`:                                  1,
		`bus_messages_dead_lettered_total{event_type="content.svg_preview.generate.v1"}`: 1,
		`bus_messages_dropped_total{event_type="other"}{reason="failed"}`:                1,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
	if n := histogramCount(t, reg, "bus_message_handling_duration_seconds", "other", bus.OutcomeOK); n != 1 {
		t.Errorf("duration of an unknown type under other: %d, want 1", n)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		for _, mm := range f.GetMetric() {
			for _, l := range mm.GetLabel() {
				if l.GetName() == "event_type" && l.GetValue() != "other" && l.GetValue() != "content.svg_preview.generate.v1" &&
					!events.Known(l.GetValue()) {
					t.Errorf("%s has event_type %q", f.GetName(), l.GetValue())
				}
			}
		}
	}
}
