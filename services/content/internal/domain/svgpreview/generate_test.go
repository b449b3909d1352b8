package svgpreview

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/videotpl/platform/services/content/internal/domain/svgpreview/svgpreviewtest"
)

// ScenePNG is the known test picture as PNG bytes.
func ScenePNG(t testing.TB) []byte { return svgpreviewtest.PNG(t) }

func sceneImage() *image.RGBA { return svgpreviewtest.Image() }

func sceneKeys() []ColorKey {
	var keys []ColorKey
	for _, r := range svgpreviewtest.Rects() {
		keys = append(keys, ColorKey{ElementKey: r.Key, CurrentColor: r.Given})
	}
	return keys
}

func colourDistance(t *testing.T, hex string, want color.RGBA) float64 {
	t.Helper()
	c, err := ParseColor(hex)
	if err != nil {
		t.Fatalf("detected colour %q: %v", hex, err)
	}
	return math.Sqrt(c.lab().dist2(rgb{want.R, want.G, want.B}.lab()))
}

func TestEveryKeyGetsTheZoneOfItsRectangle(t *testing.T) {
	t.Parallel() // CPU only, nothing shared: the generator is built per test
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, sceneImage(), &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	webp, err := os.ReadFile("testdata/scene.webp")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		data      []byte
		mediaType string
		colourTol float64 // ΔE
		boxTol    float64 // pixels
		minScore  float64
	}{
		{"png", ScenePNG(t), PNG, 1, 2, 0.99},
		{"jpeg", jpg.Bytes(), JPEG, 4, 3, 0.97},
		{"lossless webp", webp, WebP, 1, 2, 0.99},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := New(Options{}, nil, nil).Generate(context.Background(), tc.data, sceneKeys())
			if err != nil {
				t.Fatal(err)
			}
			if p.MediaType != tc.mediaType || p.Width != svgpreviewtest.Width || p.Height != svgpreviewtest.Height || p.GeneratedByAI {
				t.Fatalf("got %s %dx%d ai=%v", p.MediaType, p.Width, p.Height, p.GeneratedByAI)
			}
			if len(p.Zones) != len(svgpreviewtest.Rects()) {
				t.Fatalf("got %d zones, want %d", len(p.Zones), len(svgpreviewtest.Rects()))
			}
			for i, r := range svgpreviewtest.Rects() {
				z := p.Zones[i]
				if z.ElementKey != r.Key {
					t.Errorf("zone %d is %q, want %q", i, z.ElementKey, r.Key)
				}
				if d := colourDistance(t, z.Color, r.Color); d > tc.colourTol {
					t.Errorf("%s: detected %s, ΔE %.2f from the rectangle's colour", r.Key, z.Color, d)
				}
				got := [4]float64{z.BBox[0], z.BBox[1], z.BBox[0] + z.BBox[2], z.BBox[1] + z.BBox[3]}
				want := [4]int{r.Box[0], r.Box[1], r.Box[0] + r.Box[2], r.Box[1] + r.Box[3]}
				for j := range 4 {
					if math.Abs(got[j]-float64(want[j])) > tc.boxTol {
						t.Errorf("%s: bbox %v, want about %v (edges off by more than %v px)", r.Key, z.BBox, r.Box, tc.boxTol)
						break
					}
				}
			}
			if p.Quality < tc.minScore || p.Quality > 1 {
				t.Errorf("quality %.4f, want >= %.2f", p.Quality, tc.minScore)
			}
		})
	}
}

// svgDoc is the part of the SVG a UI relies on.
type svgDoc struct {
	Width   string `xml:"width,attr"`
	Height  string `xml:"height,attr"`
	ViewBox string `xml:"viewBox,attr"`
	Groups  []struct {
		ID    string `xml:"id,attr"`
		Paths []struct {
			ID   string `xml:"id,attr"`
			Key  string `xml:"data-element-key,attr"`
			Fill string `xml:"fill,attr"`
			D    string `xml:"d,attr"`
		} `xml:"path"`
	} `xml:"g"`
}

func TestTheSVGAddressesEachZoneByElementKey(t *testing.T) {
	t.Parallel() // CPU only, nothing shared: the generator is built per test
	p, err := New(Options{}, nil, nil).Generate(context.Background(), ScenePNG(t), sceneKeys())
	if err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(p.SVG, &doc); err != nil {
		t.Fatalf("the SVG is not XML: %v", err)
	}
	if doc.Width != "600" || doc.Height != "400" || doc.ViewBox == "" {
		t.Fatalf("svg size %s x %s viewBox %q", doc.Width, doc.Height, doc.ViewBox)
	}
	found := map[string]string{}
	for _, g := range doc.Groups {
		for _, path := range g.Paths {
			if path.D == "" || !strings.HasPrefix(path.Fill, "#") {
				t.Errorf("path %q has no shape or fill", path.ID)
			}
			if g.ID == "zones" {
				if path.ID != "zone-"+path.Key {
					t.Errorf("zone path id %q does not name its key %q", path.ID, path.Key)
				}
				found[path.Key] = path.Fill
			}
		}
	}
	for i, r := range svgpreviewtest.Rects() {
		if found[r.Key] != p.Zones[i].Color {
			t.Errorf("zone-%s fill %q, want the detected colour %q", r.Key, found[r.Key], p.Zones[i].Color)
		}
	}
	thumb, err := png.Decode(bytes.NewReader(p.Thumbnail))
	if err != nil {
		t.Fatalf("thumbnail: %v", err)
	}
	if b := thumb.Bounds(); b.Dx() != 256 || b.Dy() != 171 {
		t.Errorf("thumbnail %v, want 256x171", b)
	}
}

func TestTheSameImageGivesTheSamePreview(t *testing.T) {
	t.Parallel() // CPU only, nothing shared: the generator is built per test
	g := New(Options{}, nil, nil)
	a, err := g.Generate(context.Background(), ScenePNG(t), sceneKeys())
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Generate(context.Background(), ScenePNG(t), sceneKeys())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.SVG, b.SVG) || !bytes.Equal(a.Thumbnail, b.Thumbnail) || a.Quality != b.Quality {
		t.Fatal("two runs on the same input differ")
	}
}

var halvesKeys = []ColorKey{{"left", "#f080e0"}, {"right", "#2080e0"}}

func TestQualityFallsWhenFlatZonesCannotReproduceTheImage(t *testing.T) {
	t.Parallel() // CPU only, nothing shared: the generator is built per test
	g := New(Options{}, nil, nil)
	a, err := g.Generate(context.Background(), svgpreviewtest.Halves(t, false), halvesKeys)
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Generate(context.Background(), svgpreviewtest.Halves(t, true), halvesKeys)
	if err != nil {
		t.Fatal(err)
	}
	if a.Quality < 0.999 || b.Quality >= a.Quality-0.1 {
		t.Fatalf("two flat halves scored %.4f, noise %.4f: the score does not measure the fit", a.Quality, b.Quality)
	}
}

func TestTwoKeysOfSimilarColoursGetDistinctZones(t *testing.T) {
	t.Parallel() // CPU only, nothing shared: the generator is built per test
	keys := sceneKeys()
	keys[1].CurrentColor = "#d03030" // wrong for "accent", but still the nearest free cluster is green
	keys[0].CurrentColor = "#e53935"
	p, err := New(Options{}, nil, nil).Generate(context.Background(), ScenePNG(t), keys)
	if err != nil {
		t.Fatal(err)
	}
	if p.Zones[0].Color == p.Zones[1].Color {
		t.Fatalf("both keys got %s", p.Zones[0].Color)
	}
	if d := colourDistance(t, p.Zones[0].Color, svgpreviewtest.Rects()[0].Color); d > 1 {
		t.Errorf("the exact key lost its zone: %s", p.Zones[0].Color)
	}
}

func TestInputsTheGeneratorRefuses(t *testing.T) {
	t.Parallel() // CPU only, nothing shared: the generator is built per test
	cases := []struct {
		name string
		data []byte
		keys []ColorKey
		want error
	}{
		{"text instead of an image", []byte("hello, world"), sceneKeys(), ErrUnsupportedImage},
		{"truncated png", ScenePNG(t)[:100], sceneKeys(), ErrUnsupportedImage},
		{"a colour that is not hex", ScenePNG(t), []ColorKey{{"a", "red"}}, ErrInvalidKeys},
		{"a repeated key", ScenePNG(t), []ColorKey{{"a", "#fff"}, {"a", "#000"}}, ErrInvalidKeys},
		{"an empty key", ScenePNG(t), []ColorKey{{"", "#fff"}}, ErrInvalidKeys},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(Options{}, nil, nil).Generate(context.Background(), tc.data, tc.keys)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSniffRecognisesImagesByTheirMagicBytes(t *testing.T) {
	cases := []struct {
		head []byte
		want string
		ok   bool
	}{
		{[]byte("\x89PNG\r\n\x1a\n...."), PNG, true},
		{[]byte{0xff, 0xd8, 0xff, 0xe0}, JPEG, true},
		{[]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), WebP, true},
		{[]byte("RIFF\x00\x00\x00\x00WAVEfmt "), "", false},
		{[]byte("GIF89a"), "", false},
		{nil, "", false},
	}
	for _, tc := range cases {
		got, ok := Sniff(tc.head)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Sniff(%q) = %q, %v; want %q, %v", tc.head, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseColorAcceptsShortAndLongHex(t *testing.T) {
	cases := map[string]string{"#ff8800": "#ff8800", "FF8800": "#ff8800", "#f80": "#ff8800", " #0a0B0c ": "#0a0b0c"}
	for in, want := range cases {
		c, err := ParseColor(in)
		if err != nil || c.Hex() != want {
			t.Errorf("ParseColor(%q) = %s, %v; want %s", in, c.Hex(), err, want)
		}
	}
	for _, bad := range []string{"", "#12345", "#gggggg", "rgb(1,2,3)"} {
		if ValidColor(bad) {
			t.Errorf("ValidColor(%q) = true", bad)
		}
	}
}

// BenchmarkGenerateLargePhoto times a 12-megapixel gradient with noise (a photo's worst case
// for the clustering).
func BenchmarkGenerateLargePhoto(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	rnd := rand.New(rand.NewPCG(3, 4))
	for y := 0; y < 3000; y++ {
		for x := 0; x < 4000; x++ {
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(x*255/4000), uint8(y*255/3000), uint8(rnd.IntN(40)), 0xff
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	g := New(Options{}, nil, nil)
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.Generate(context.Background(), buf.Bytes(), sceneKeys()); err != nil {
			b.Fatal(err)
		}
	}
}
