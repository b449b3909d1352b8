package httpapi_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview/svgpreviewtest"
)

// The shared server registers its metrics as the binary does; once it has served a request
// and run a preview job, /metrics serves every family the README lists, and only those.
func TestMetricsAreThoseTheREADMELists(t *testing.T) {
	ev := newEnv(t)
	pid := ev.draftProject("metrics")
	sid := ev.scene(pid, "opening").Id
	id := generate(t, ev, "scene", sid, svgpreviewtest.PNG(t), keyParts()...)
	for deadline := time.Now().Add(30 * time.Second); getPreview(t, ev, id).Status == content.SvgPreviewStatusGenerating; {
		if time.Now().After(deadline) {
			t.Fatal("the preview job did not run within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; { // the handled counter moves once the handler has returned
		body = httpxtest.Scrape(t, ev.tel.Registry)
		if strings.Contains(body, `bus_messages_handled_total{event_type="content.svg_preview.generate.v1"}`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	httpxtest.CheckMetricsDocumented(t, string(readme), body)
	for _, want := range []string{`bus_messages_failed_total{event_type="other"} 0`,
		`bus_messages_dead_lettered_total{event_type="content.svg_preview.generate.v1"} 0`, `bus_connected{connection="broker"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s", want)
		}
	}
}
