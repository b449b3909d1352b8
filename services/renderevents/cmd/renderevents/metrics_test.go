package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
)

// testMetricsCountStreamsAndDeliveriesAndAreThoseTheREADMELists runs after the shared tests
// that stream progress, dead-letter a poison message and deliver webhooks.
func testMetricsCountStreamsAndDeliveriesAndAreThoseTheREADMELists(t *testing.T, h *harness) {
	body := httpxtest.Scrape(t, h.tel.Registry)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	httpxtest.CheckMetricsDocumented(t, string(readme), body)

	const stream = `route="/v1/render-jobs/:job_id/progress"`
	for series, least := range map[string]float64{
		`sse_connections_total{` + stream + `}`:                                  1,
		`sse_frames_sent_total{event="progress"}`:                                1,
		`sse_frames_sent_total{event="completed"}`:                               1,
		`webhook_deliveries_total{outcome="delivered"}`:                          1,
		`webhook_deliveries_total{outcome="retrying"}`:                           2,
		`webhook_delivery_attempts_total{result="http_error"}`:                   2,
		`webhook_delivery_duration_seconds_count`:                                3,
		`bus_messages_dead_lettered_total{event_type="render.job.completed.v1"}`: 0,
		`bus_messages_handled_total{event_type="render.job.completed.v1"}`:       1,
		`db_pool_acquires_total`:                                                 1,
	} {
		if v, ok := httpxtest.Sample(body, series); !ok || v < least {
			t.Errorf("%s = %v (served %v), want at least %v", series, v, ok, least)
		}
	}
	for _, zero := range []string{`sse_connections_open{` + stream + `}`, `webhook_deliveries_total{outcome="given_up"}`,
		`webhook_dispatch_errors_total{stage="record"}`, `sse_streams_lagged_total`} {
		if v, ok := httpxtest.Sample(body, zero); !ok || v != 0 {
			t.Errorf("%s = %v (served %v), want 0", zero, v, ok)
		}
	}
	if strings.Contains(body, `http_request_duration_seconds_count{method="GET",route="/v1/render-jobs/:job_id/progress",status="200"}`) {
		t.Error("progress streams are in the request latency histogram")
	}
	known := append(events.Names(), "other")
	for _, m := range regexp.MustCompile(`event_type="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		if !slices.Contains(known, m[1]) {
			t.Errorf("event_type=%q is neither an event of the catalogue nor other", m[1])
		}
	}
}
