// Package vision is the client of an external vision model (an OpenAI-compatible
// chat-completions endpoint) that proposes the colour zones of an SVG preview.
package vision

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
)

// Model asks an external vision model, through an OpenAI-compatible chat-completions
// endpoint, where each colour element is: the image goes as a PNG data URL (shrunk to at most
// MaxSide pixels) and the answer is a JSON object {"zones": [{"element_key", "color", "bbox"}]}
// with boxes in the pixels of the image sent, scaled back here to the source.
type Model struct {
	// BaseURL of the gateway; the request goes to BaseURL + "/v1/chat/completions" (a
	// trailing "/v1" in BaseURL is not repeated).
	BaseURL string
	APIKey  string
	Model   string
	// Client defaults to an http.Client with Timeout.
	Client *http.Client
	// Timeout bounds one request (none when zero).
	Timeout time.Duration
	// MaxSide is the longer side of the image sent (default 1024).
	MaxSide int
}

const visionInstructions = `You locate colour elements in an image of a video template scene.
For every element listed by the user, find the region that is painted in (approximately) the element's current colour.
Answer with one JSON object and nothing else:
{"zones": [{"element_key": "<key as given>", "color": "#rrggbb", "bbox": [x, y, width, height]}]}
- one entry per listed element_key, no other keys;
- color is the colour you see in that region, as #rrggbb;
- bbox is the region's bounding box in pixels of the image you received, origin top-left.`

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

type modelAnswer struct {
	Zones []struct {
		ElementKey string    `json:"element_key"`
		Color      string    `json:"color"`
		BBox       []float64 `json:"bbox"`
	} `json:"zones"`
}

var _ svgpreview.ZoneSource = (*Model)(nil)

// DetectZones implements svgpreview.ZoneSource.
func (m *Model) DetectZones(ctx context.Context, img image.Image, keys []svgpreview.ColorKey) ([]svgpreview.Zone, error) {
	if m.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.Timeout)
		defer cancel()
	}
	maxSide := m.MaxSide
	if maxSide <= 0 {
		maxSide = 1024
	}
	sent := svgpreview.Downscale(img, maxSide)
	sentW, sentH := sent.Rect.Dx(), sent.Rect.Dy()
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, sent); err != nil {
		return nil, err
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(chatRequest{
		Model:          m.Model,
		Temperature:    0,
		ResponseFormat: &responseFormat{Type: "json_object"},
		Messages: []chatMessage{
			{Role: "system", Content: visionInstructions},
			{Role: "user", Content: []contentPart{
				{Type: "text", Text: fmt.Sprintf("The image is %dx%d pixels. Elements: %s", sentW, sentH, list)},
				{Type: "image_url", ImageURL: &imageURL{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBuf.Bytes())}},
			}},
		},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if m.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.APIKey)
	}
	client := m.Client
	if client == nil {
		client = &http.Client{Timeout: m.Timeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("vision model: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("vision model: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("vision model: status %d: %.200s", resp.StatusCode, raw)
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return nil, fmt.Errorf("vision model: not a chat completion: %w", err)
	}
	if len(cr.Choices) == 0 {
		return nil, errors.New("vision model: no choices in the answer")
	}
	var ans modelAnswer
	if err := json.Unmarshal([]byte(stripFence(cr.Choices[0].Message.Content)), &ans); err != nil {
		return nil, fmt.Errorf("vision model: the answer is not the requested JSON: %w", err)
	}
	src := img.Bounds()
	sx, sy := float64(src.Dx())/float64(sentW), float64(src.Dy())/float64(sentH)
	out := make([]svgpreview.Zone, 0, len(ans.Zones))
	for _, z := range ans.Zones {
		if len(z.BBox) != 4 {
			return nil, fmt.Errorf("vision model: zone %q: bbox has %d numbers, want 4", z.ElementKey, len(z.BBox))
		}
		out = append(out, svgpreview.Zone{ElementKey: z.ElementKey, Color: z.Color,
			BBox: [4]float64{z.BBox[0] * sx, z.BBox[1] * sy, z.BBox[2] * sx, z.BBox[3] * sy}})
	}
	return out, nil
}

func (m *Model) endpoint() string {
	base := strings.TrimRight(m.BaseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	return base + "/v1/chat/completions"
}

// stripFence removes a Markdown code fence some models wrap JSON in.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimPrefix(s, "json")
	s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	return strings.TrimSpace(s)
}
