package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview/svgpreviewtest"
	"github.com/videotpl/platform/services/content/internal/store/vision"
)

func keyParts() []part {
	var parts []part
	for _, r := range svgpreviewtest.Rects() {
		parts = append(parts, jsonPart("color_keys", fmt.Sprintf(`{"element_key": %q, "current_color": %q}`, r.Key, r.Given)))
	}
	return parts
}

// generate asks for a preview and returns its id (202 expected).
func generate(t *testing.T, ev *env, targetType string, target uuid.UUID, image []byte, extra ...part) uuid.UUID {
	t.Helper()
	parts := append([]part{filePart("image", "scene.png", image), fieldPart("target_type", targetType), fieldPart("target_id", target.String())}, extra...)
	ct, body := streamedBody(parts...)
	r, err := ev.c.GenerateSvgPreviewWithBodyWithResponse(ctx(t), nil, ct, body, ev.admin)
	want(t, r, err, 202)
	if r.JSON202.Status != "Generating" {
		t.Fatalf("accepted with status %s", r.JSON202.Status)
	}
	return r.JSON202.SvgPreviewId
}

func getPreview(t *testing.T, ev *env, id uuid.UUID) content.SvgPreview {
	t.Helper()
	r, err := ev.c.GetSvgPreviewWithResponse(ctx(t), id, ev.admin)
	want(t, r, err, 200)
	return *r.JSON200
}

// checkZones asserts that every rectangle of the known picture got its zone and colour.
func checkZones(t *testing.T, p content.SvgPreview) {
	t.Helper()
	if p.ColorZones == nil || len(*p.ColorZones) != len(svgpreviewtest.Rects()) {
		t.Fatalf("zones %v", p.ColorZones)
	}
	for i, r := range svgpreviewtest.Rects() {
		z := (*p.ColorZones)[i]
		want := fmt.Sprintf("#%02x%02x%02x", r.Color.R, r.Color.G, r.Color.B)
		if z.ElementKey != r.Key || z.DetectedColor != want {
			t.Errorf("zone %d: %s %s, want %s %s", i, z.ElementKey, z.DetectedColor, r.Key, want)
		}
		edges := []float64{z.Bbox[0], z.Bbox[1], z.Bbox[0] + z.Bbox[2], z.Bbox[1] + z.Bbox[3]}
		wantEdges := []int{r.Box[0], r.Box[1], r.Box[0] + r.Box[2], r.Box[1] + r.Box[3]}
		for j := range edges {
			if math.Abs(edges[j]-float64(wantEdges[j])) > 2 {
				t.Errorf("%s: bbox %v, want about %v", r.Key, z.Bbox, r.Box)
				break
			}
		}
	}
}

func TestAnSvgPreviewOfAKnownPictureIsReadyAndAnnouncedOnTheEventsExchange(t *testing.T) {
	ev := newEnv(t, withBus(), withExchange("events"))
	q := listenGenerated(t, ev.bus.AMQPURL, "events")
	pid := ev.draftProject("svg-ready")
	sid := ev.scene(pid, "opening").Id

	none, err := ev.c.GetSceneSvgPreviewWithResponse(ctx(t), sid, ev.admin)
	want(t, none, err, 404)

	id := generate(t, ev, "scene", sid, svgpreviewtest.PNG(t), keyParts()...)
	got := q.next(id)
	if got.Delivery.Exchange != "events" || got.Delivery.RoutingKey != events.ContentSvgPreviewGeneratedV1 {
		t.Errorf("delivered from exchange %q with routing key %q", got.Delivery.Exchange, got.Delivery.RoutingKey)
	}
	env, d := got.Envelope, got.Data
	if env.EventType != events.ContentSvgPreviewGeneratedV1 || env.Producer == nil || *env.Producer != events.ProducerContentService || env.TenantID != ev.tenantID {
		t.Errorf("envelope %+v", env)
	}
	if d.Status != events.SvgPreviewStatusReady || d.TargetType != events.SvgPreviewTargetTypeScene || d.TargetID != sid ||
		d.SceneID == nil || *d.SceneID != sid || d.ProjectID == nil || *d.ProjectID != pid || d.ColorZoneCount != 3 ||
		d.GeneratedByAI || d.Error != nil || d.SvgURL == nil || d.ThumbnailURL == nil || d.QualityScore == nil || *d.QualityScore < 0.99 {
		t.Errorf("event data %+v", d)
	}

	p := getPreview(t, ev, id)
	if p.Status != content.SvgPreviewStatusReady || p.Error != nil || p.Width == nil || *p.Width != svgpreviewtest.Width || *p.Height != svgpreviewtest.Height ||
		p.GeneratedByAi == nil || *p.GeneratedByAi || p.QualityScore == nil || *p.QualityScore < 0.99 {
		t.Fatalf("preview %+v", p)
	}
	checkZones(t, p)

	cur, err := ev.c.GetSceneSvgPreviewWithResponse(ctx(t), sid, ev.user)
	want(t, cur, err, 404) // the project's container is not published: users do not see it
	cur, err = ev.c.GetSceneSvgPreviewWithResponse(ctx(t), sid, ev.admin)
	want(t, cur, err, 200)
	if cur.JSON200.Id != id {
		t.Errorf("the scene's current preview is %s, want %s", cur.JSON200.Id, id)
	}

	bucket := ev.app.Config().MediaBucket
	svg, err := ev.s3.Get(ctx(t), bucket, objectKey(*p.SvgUrl, bucket))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = svg.Close() }()
	doc, _ := io.ReadAll(svg)
	for _, r := range svgpreviewtest.Rects() {
		if !strings.Contains(string(doc), fmt.Sprintf(`id="zone-%s" data-element-key="%s"`, r.Key, r.Key)) {
			t.Errorf("the stored SVG has no zone for %s", r.Key)
		}
	}
	if _, _, err := ev.s3.Hash(ctx(t), bucket, objectKey(*p.ThumbnailUrl, bucket)); err != nil {
		t.Errorf("thumbnail: %v", err)
	}

	// A second request becomes the scene's current preview.
	id2 := generate(t, ev, "scene", sid, svgpreviewtest.PNG(t), keyParts()[:1]...)
	q.next(id2)
	cur, err = ev.c.GetSceneSvgPreviewWithResponse(ctx(t), sid, ev.admin)
	want(t, cur, err, 200)
	if cur.JSON200.Id != id2 || len(*cur.JSON200.ColorZones) != 1 {
		t.Errorf("the current preview is %s with %d zones, want %s with 1", cur.JSON200.Id, len(*cur.JSON200.ColorZones), id2)
	}
}

func TestAnImageThatCannotBeDecodedFailsThePreviewWithItsEvent(t *testing.T) {
	ev := newEnv(t, withBus())
	q := listenGenerated(t, ev.bus.AMQPURL, ev.bus.EventsExchange)
	pid := ev.draftProject("svg-failed")
	broken := append([]byte("\x89PNG\r\n\x1a\n"), "this is not the rest of a PNG"...)
	id := generate(t, ev, "project", pid, broken, keyParts()...)
	got := q.next(id)
	if got.Data.Status != events.SvgPreviewStatusFailed || got.Data.Error == nil || got.Data.SvgURL != nil || got.Data.ColorZoneCount != 0 ||
		got.Data.SceneID != nil || got.Data.ProjectID == nil || *got.Data.ProjectID != pid {
		t.Fatalf("event data %+v", got.Data)
	}
	p := getPreview(t, ev, id)
	if p.Status != content.SvgPreviewStatusFailed || p.Error == nil || !strings.Contains(*p.Error, "PNG") || p.SvgUrl != nil || p.ColorZones != nil {
		t.Fatalf("preview %+v", p)
	}
}

func TestColourKeysDefaultToTheTargetsColourElements(t *testing.T) {
	ev := newEnv(t, withBus())
	q := listenGenerated(t, ev.bus.AMQPURL, ev.bus.EventsExchange)
	pid := ev.draftProject("svg-defaults")
	sid := ev.scene(pid, "opening").Id
	rects := svgpreviewtest.Rects()
	for _, r := range []svgpreviewtest.Rect{rects[2], rects[0]} {
		c, err := ev.c.CreateSceneColorWithResponse(ctx(t), sid, nil, content.SceneColorElement{
			ElementKey: &r.Key, DefaultColor: &r.Given, Title: &r.Key}, ev.admin)
		want(t, c, err, 201)
	}
	id := generate(t, ev, "scene", sid, svgpreviewtest.PNG(t))
	if got := q.next(id); got.Data.Status != events.SvgPreviewStatusReady || got.Data.ColorZoneCount != 2 {
		t.Fatalf("event data %+v", got.Data)
	}
	p := getPreview(t, ev, id)
	var keys []string
	for _, z := range *p.ColorZones {
		keys = append(keys, z.ElementKey)
	}
	if !slices.Equal(keys, []string{"badge", "title_bg"}) {
		t.Fatalf("zones for %v, want the scene's colour elements in their order", keys)
	}
}

func TestPreviewRequestsThatAreRefused(t *testing.T) {
	ev := newEnv(t)
	pid := ev.draftProject("svg-refused")
	png := svgpreviewtest.PNG(t)
	big := append(slices.Clone(png), make([]byte, domain.MaxPreviewImageBytes)...)
	target := []part{fieldPart("target_type", "project"), fieldPart("target_id", pid.String())}
	with := func(parts ...part) []part { return append(slices.Clone(target), parts...) }
	cases := []struct {
		name   string
		caller content.RequestEditorFn
		parts  []part
		status int
		fields []string
	}{
		{"no image", ev.admin, with(), 400, []string{"body.image"}},
		{"no target", ev.admin, []part{filePart("image", "a.png", png)}, 400, []string{"body.target_type", "body.target_id"}},
		{"an unknown target type", ev.admin, []part{filePart("image", "a.png", png), fieldPart("target_type", "template"), fieldPart("target_id", pid.String())}, 400, []string{"body.target_type"}},
		{"a colour that is not hex", ev.admin, with(filePart("image", "a.png", png), jsonPart("color_keys", `{"element_key": "a", "current_color": "red"}`)), 400, []string{"body.color_keys[0].current_color"}},
		{"a key part that is not JSON", ev.admin, with(filePart("image", "a.png", png), jsonPart("color_keys", `a=#fff`)), 400, []string{"body.color_keys"}},
		{"a repeated key", ev.admin, with(filePart("image", "a.png", png), jsonPart("color_keys", `[{"element_key": "a", "current_color": "#fff"}, {"element_key": "a", "current_color": "#000"}]`)), 400, []string{"body.color_keys[1].element_key"}},
		{"a GIF", ev.admin, with(filePart("image", "a.gif", []byte("GIF89a\x01\x00\x01\x00"))), 415, nil},
		{"an image above the bound", ev.admin, with(filePart("image", "a.png", big)), 413, nil},
		{"a caller without the admin role", ev.user, with(filePart("image", "a.png", png)), 403, nil},
		{"an unknown scene", ev.admin, []part{filePart("image", "a.png", png), fieldPart("target_type", "scene"), fieldPart("target_id", uuid.NewString())}, 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := streamedBody(tc.parts...)
			r, err := ev.c.GenerateSvgPreviewWithBodyWithResponse(ctx(t), nil, ct, body, tc.caller)
			want(t, r, err, tc.status)
			if tc.fields != nil {
				if got := problemFields(r.ApplicationproblemJSON400); !slices.Equal(got, tc.fields) {
					t.Errorf("problem fields %v, want %v", got, tc.fields)
				}
			}
		})
	}
	var n int
	if err := ev.pool.QueryRow(ctx(t), "SELECT count(*) FROM svg_previews WHERE project_id = $1", pid).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused requests recorded %d previews (%v)", n, err)
	}
	r, err := ev.c.GetSvgPreviewWithResponse(ctx(t), uuid.New(), ev.admin)
	want(t, r, err, 404)
}

func TestAPreviewJobWaitingInTheOutboxCompletesOnceTheBusRuns(t *testing.T) {
	ev := newEnv(t, alone())
	q := listenGenerated(t, ev.bus.AMQPURL, ev.bus.EventsExchange)
	pid := ev.draftProject("svg-outbox")
	id := generate(t, ev, "project", pid, svgpreviewtest.PNG(t), keyParts()...)
	if p := getPreview(t, ev, id); p.Status != content.SvgPreviewStatusGenerating || p.SvgUrl != nil {
		t.Fatalf("without a running consumer the preview is %s", p.Status)
	}
	var pending int
	if err := ev.pool.QueryRow(ctx(t), "SELECT count(*) FROM watermill_outbox").Scan(&pending); err != nil || pending != 1 {
		t.Fatalf("outbox holds %d rows (%v), want the job's command", pending, err)
	}
	ev.startBus()
	if got := q.next(id); got.Data.Status != events.SvgPreviewStatusReady {
		t.Fatalf("event data %+v", got.Data)
	}
	checkZones(t, getPreview(t, ev, id))
}

// gateway is a local chat-completions server standing in for the vision model.
func gateway(t *testing.T, answer func(w http.ResponseWriter)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		answer(w)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// modelAnswer is a chat completion whose content names the picture's rectangles.
func modelAnswer(w http.ResponseWriter) {
	var zones []map[string]any
	for _, r := range svgpreviewtest.Rects() {
		zones = append(zones, map[string]any{"element_key": r.Key, "color": fmt.Sprintf("#%02x%02x%02x", r.Color.R, r.Color.G, r.Color.B),
			"bbox": []int{r.Box[0], r.Box[1], r.Box[2], r.Box[3]}})
	}
	content, _ := json.Marshal(map[string]any{"zones": zones})
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": string(content)}}}})
}

func TestTheVisionModelMakesTheZonesAndTheDetectorStandsInWhenItFails(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter)
		byAI   bool
	}{
		{"a model that answers", modelAnswer, true},
		{"a model that fails with 500", func(w http.ResponseWriter) { http.Error(w, "upstream overloaded", http.StatusInternalServerError) }, false},
		{"a model that answers garbage", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"choices": [{"message": {"content": "sure! here"}}]}`)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := &vision.Model{BaseURL: gateway(t, tc.answer), APIKey: "test-key", Model: "vision-test"}
			ev := newEnv(t, withBus(), withModel(model))
			q := listenGenerated(t, ev.bus.AMQPURL, ev.bus.EventsExchange)
			pid := ev.draftProject("svg-ai")
			id := generate(t, ev, "project", pid, svgpreviewtest.PNG(t), keyParts()...)
			if got := q.next(id); got.Data.Status != events.SvgPreviewStatusReady || got.Data.GeneratedByAI != tc.byAI {
				t.Fatalf("event data %+v", got.Data)
			}
			p := getPreview(t, ev, id)
			if p.GeneratedByAi == nil || *p.GeneratedByAi != tc.byAI {
				t.Fatalf("generated_by_ai %v, want %v", p.GeneratedByAi, tc.byAI)
			}
			checkZones(t, p)
		})
	}
}

func TestTheSweeperFailsAPreviewWhoseJobNeverRan(t *testing.T) {
	ev := newEnv(t, withConfig(func(c *app.Config) { c.PreviewTimeout = time.Nanosecond }))
	q := listenGenerated(t, ev.bus.AMQPURL, ev.bus.EventsExchange)
	pid := ev.draftProject("svg-stuck")
	id := generate(t, ev, "project", pid, svgpreviewtest.PNG(t), keyParts()...)
	n, err := ev.app.SweepStuckPreviews(ctx(t))
	if err != nil || n != 1 {
		t.Fatalf("swept %d previews (%v)", n, err)
	}
	p := getPreview(t, ev, id)
	if p.Status != content.SvgPreviewStatusFailed || p.Error == nil || !strings.Contains(*p.Error, "did not finish") {
		t.Fatalf("preview %+v", p)
	}
	// The late job finds the preview finished and changes nothing; the Failed event goes out.
	ev.startBus()
	if got := q.next(id); got.Data.Status != events.SvgPreviewStatusFailed {
		t.Fatalf("event data %+v", got.Data)
	}
	if p := getPreview(t, ev, id); p.Status != content.SvgPreviewStatusFailed {
		t.Fatalf("the late job moved the preview to %s", p.Status)
	}
}
