package vision_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview/svgpreviewtest"
	"github.com/videotpl/platform/services/content/internal/store/vision"
)

// fakeGateway speaks the chat-completions protocol; answer decides the reply to each request.
type fakeGateway struct {
	mu       sync.Mutex
	requests []map[string]any
	answer   func(w http.ResponseWriter, r *http.Request)
}

func (f *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	req["_path"], req["_auth"] = r.URL.Path, r.Header.Get("Authorization")
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	f.answer(w, r)
}

func completion(content string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}
}

// The model sees the picture at half size (MaxSide 300): its boxes are in those pixels.
const goodAnswer = "```json\n" + `{"zones": [
  {"element_key": "title_bg", "color": "#e53935", "bbox": [20, 25, 80, 60]},
  {"element_key": "accent", "color": "#43a047", "bbox": [130, 30, 60, 100]},
  {"element_key": "badge", "color": "#1e88e5", "bbox": [210, 110, 70, 70]}
]}` + "\n```"

func TestTheVisionModelProducesTheZonesWhenItAnswersWell(t *testing.T) {
	gw := &fakeGateway{answer: completion(goodAnswer)}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	model := &vision.Model{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "vision-small", MaxSide: 300}

	p, err := svgpreview.New(svgpreview.Options{}, model, slog.New(slog.DiscardHandler)).Generate(context.Background(), svgpreviewtest.PNG(t), sceneKeys())
	if err != nil {
		t.Fatal(err)
	}
	if !p.GeneratedByAI {
		t.Fatal("generated_by_ai is false although the model answered well")
	}
	for i, r := range svgpreviewtest.Rects() {
		z := p.Zones[i]
		want := [4]float64{float64(r.Box[0]), float64(r.Box[1]), float64(r.Box[2]), float64(r.Box[3])}
		if z.ElementKey != r.Key || z.BBox != want {
			t.Errorf("zone %d = %s %v, want %s %v (the model's box scaled back to the source)", i, z.ElementKey, z.BBox, r.Key, want)
		}
	}
	if p.Quality < 0.99 {
		t.Errorf("quality %.4f", p.Quality)
	}
	if !bytes.Contains(p.SVG, []byte(`id="zone-badge"`)) {
		t.Error("the SVG has no zone for badge")
	}

	if len(gw.requests) != 1 {
		t.Fatalf("the gateway got %d requests", len(gw.requests))
	}
	req := gw.requests[0]
	if req["_path"] != "/v1/chat/completions" || req["_auth"] != "Bearer sk-test" || req["model"] != "vision-small" {
		t.Errorf("request path %v auth %v model %v", req["_path"], req["_auth"], req["model"])
	}
	if rf, _ := req["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v, want json_object", req["response_format"])
	}
	raw, _ := json.Marshal(req["messages"])
	const prefix = "data:image/png;base64,"
	i := bytes.Index(raw, []byte(prefix))
	if i < 0 {
		t.Fatalf("no PNG data URL in the messages: %.300s", raw)
	}
	enc := raw[i+len(prefix):]
	enc = enc[:bytes.IndexByte(enc, '"')]
	img, err := decodeDataURL(string(enc))
	if err != nil {
		t.Fatalf("the image sent does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 200 {
		t.Errorf("image sent is %v, want 300x200", b)
	}
	for _, r := range svgpreviewtest.Rects() {
		if !strings.Contains(string(raw), r.Key) {
			t.Errorf("the prompt does not name %s", r.Key)
		}
	}
}

func decodeDataURL(s string) (image.Image, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return png.Decode(bytes.NewReader(b))
}

func sceneKeys() []svgpreview.ColorKey {
	var keys []svgpreview.ColorKey
	for _, r := range svgpreviewtest.Rects() {
		keys = append(keys, svgpreview.ColorKey{ElementKey: r.Key, CurrentColor: r.Given})
	}
	return keys
}

var halvesKeys = []svgpreview.ColorKey{{ElementKey: "left", CurrentColor: "#f080e0"}, {ElementKey: "right", CurrentColor: "#2080e0"}}

// halvesAnswer is a good answer for the picture of two halves.
const halvesAnswer = `{"zones": [{"element_key": "left", "color": "#f080e0", "bbox": [0, 0, 80, 120]},
  {"element_key": "right", "color": "#2080e0", "bbox": [80, 0, 80, 120]}]}`

func TestTheBuiltInDetectorAnswersWhenTheVisionModelFails(t *testing.T) {
	cases := []struct {
		name   string
		answer func(http.ResponseWriter, *http.Request)
	}{
		{"server error", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
		}},
		{"not json at all", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "<html>bad gateway</html>") }},
		{"prose instead of the json asked for", completion("The red rectangle is at the top left.")},
		{"a requested key missing", completion(`{"zones": [{"element_key": "left", "color": "#f080e0", "bbox": [0, 0, 80, 120]}]}`)},
		{"a colour that is not hex", completion(strings.Replace(halvesAnswer, "#2080e0", "blue", 1))},
		{"a box outside the image", completion(strings.Replace(halvesAnswer, "[80, 0, 80, 120]", "[900, 900, 10, 10]", 1))},
		{"a box of three numbers", completion(strings.Replace(halvesAnswer, "[80, 0, 80, 120]", "[80, 0, 80]", 1))},
		{"no answer in time", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
	}
	// Any failure must give exactly the built-in detector's preview (a small picture keeps the
	// eight cases quick).
	builtIn, err := svgpreview.New(svgpreview.Options{}, nil, nil).Generate(context.Background(), svgpreviewtest.Halves(t, false), halvesKeys)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("control: the same picture with a good answer is the model's", func(t *testing.T) {
		srv := httptest.NewServer(&fakeGateway{answer: completion(halvesAnswer)})
		defer srv.Close()
		p, err := svgpreview.New(svgpreview.Options{}, &vision.Model{BaseURL: srv.URL, Model: "m"}, nil).Generate(context.Background(), svgpreviewtest.Halves(t, false), halvesKeys)
		if err != nil || !p.GeneratedByAI {
			t.Fatalf("generated_by_ai %v (%v)", p != nil && p.GeneratedByAI, err)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&fakeGateway{answer: tc.answer})
			defer srv.Close()
			model := &vision.Model{BaseURL: srv.URL, APIKey: "k", Model: "m", MaxSide: 300, Timeout: 300 * time.Millisecond}
			p, err := svgpreview.New(svgpreview.Options{}, model, slog.New(slog.DiscardHandler)).Generate(context.Background(), svgpreviewtest.Halves(t, false), halvesKeys)
			if err != nil {
				t.Fatal(err)
			}
			if p.GeneratedByAI {
				t.Fatal("generated_by_ai is true after the model failed")
			}
			if !bytes.Equal(p.SVG, builtIn.SVG) {
				t.Fatal("the fallback preview differs from the built-in detector's")
			}
		})
	}
}
