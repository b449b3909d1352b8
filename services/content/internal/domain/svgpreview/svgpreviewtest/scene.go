// Package svgpreviewtest draws the pictures of the SVG preview tests: the known scene of three
// coloured rectangles on a light background, with the colours a client would send for them,
// and a small picture of two flat halves.
package svgpreviewtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"sync"
	"testing"
)

// Rect is one rectangle of the picture.
type Rect struct {
	Key   string     // the colour element it stands for
	Color color.RGBA // its colour in the picture
	Box   [4]int     // x, y, width, height
	Given string     // the element's current colour as a client sends it (close, not equal)
}

// Width and Height of the picture; Background is its colour.
const (
	Width  = 600
	Height = 400
)

// Background is the picture's background colour.
var Background = color.RGBA{0xf0, 0xf0, 0xf0, 0xff}

// Rects are the picture's rectangles.
func Rects() []Rect {
	return []Rect{
		{"title_bg", color.RGBA{0xe5, 0x39, 0x35, 0xff}, [4]int{40, 50, 160, 120}, "#e63a36"},
		{"accent", color.RGBA{0x43, 0xa0, 0x47, 0xff}, [4]int{260, 60, 120, 200}, "#40a040"},
		{"badge", color.RGBA{0x1e, 0x88, 0xe5, 0xff}, [4]int{420, 220, 140, 140}, "#2088e0"},
	}
}

// Image draws the picture.
func Image() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, Width, Height))
	for y := 0; y < Height; y++ {
		for x := 0; x < Width; x++ {
			img.SetRGBA(x, y, Background)
		}
	}
	for _, r := range Rects() {
		for y := r.Box[1]; y < r.Box[1]+r.Box[3]; y++ {
			for x := r.Box[0]; x < r.Box[0]+r.Box[2]; x++ {
				img.SetRGBA(x, y, r.Color)
			}
		}
	}
	return img
}

// scenePNG is the picture encoded once per test binary (the tests ask for it often, and the
// encoding is costly under the race detector).
var scenePNG = sync.OnceValues(func() ([]byte, error) {
	var buf bytes.Buffer
	err := png.Encode(&buf, Image())
	return buf.Bytes(), err
})

// PNG is the picture as PNG bytes (a copy of its own for each caller).
func PNG(t testing.TB) []byte {
	t.Helper()
	b, err := scenePNG()
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(b)
}

// Halves is a small picture (160x120) of two flat halves, #f080e0 and #2080e0, as PNG bytes,
// for tests that need any image quickly; noisy fills it with random colours instead.
func Halves(t testing.TB, noisy bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 160, 120))
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 0x20, 0x80, 0xe0, 0xff
		if (i/4)%160 < 80 {
			img.Pix[i] = 0xf0
		}
		if noisy {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), uint8(rnd.IntN(256))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
