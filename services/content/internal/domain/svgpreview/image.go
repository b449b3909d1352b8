package svgpreview

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"
)

// Image formats the generator reads, by media type.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	WebP = "image/webp"
)

// MaxPixels bounds a decoded image (a small file can declare a huge canvas).
const MaxPixels = 40_000_000

// ErrUnsupportedImage means the bytes are not a PNG, JPEG or WebP image the generator can
// decode; generation of such an image fails for good.
var ErrUnsupportedImage = errors.New("svgpreview: not a decodable PNG, JPEG or WebP image")

// Sniff recognises a PNG, JPEG or WebP image by its first bytes (12 are enough) and returns
// its media type.
func Sniff(head []byte) (string, bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, true
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return JPEG, true
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WebP, true
	}
	return "", false
}

// Decode decodes a PNG, JPEG or WebP image, refusing canvases above MaxPixels before
// decoding the pixels.
func Decode(data []byte) (image.Image, string, error) {
	mt, ok := Sniff(data)
	if !ok {
		return nil, "", ErrUnsupportedImage
	}
	var (
		decodeConfig func(io.Reader) (image.Config, error)
		decode       func(io.Reader) (image.Image, error)
	)
	switch mt {
	case PNG:
		decodeConfig, decode = png.DecodeConfig, png.Decode
	case JPEG:
		decodeConfig, decode = jpeg.DecodeConfig, jpeg.Decode
	default:
		decodeConfig, decode = webp.DecodeConfig, webp.Decode
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrUnsupportedImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > MaxPixels {
		return nil, "", fmt.Errorf("%w: %dx%d pixels (at most %d)", ErrUnsupportedImage, cfg.Width, cfg.Height, MaxPixels)
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrUnsupportedImage, err)
	}
	return img, mt, nil
}

// raster is an image's pixels as 8-bit RGB (alpha composed over white), row-major.
type raster struct {
	w, h int
	pix  []rgb
}

func (r *raster) at(x, y int) rgb { return r.pix[y*r.w+x] }

// toRaster flattens img; transparent pixels are composed over white, as a browser shows them
// on a white page. image/draw has fast paths for the decoders' pixel types.
func toRaster(img image.Image) *raster {
	b := img.Bounds()
	canvas := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(canvas, canvas.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(canvas, canvas.Rect, img, b.Min, draw.Over)
	r := &raster{w: b.Dx(), h: b.Dy(), pix: make([]rgb, b.Dx()*b.Dy())}
	for i := range r.pix {
		r.pix[i] = rgb{canvas.Pix[4*i], canvas.Pix[4*i+1], canvas.Pix[4*i+2]}
	}
	return r
}

// span maps cell i of n cells onto [lo, hi) of size pixels.
func span(i, n, size int) (lo, hi int) {
	lo, hi = i*size/n, (i+1)*size/n
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// shrink box-averages src into a grid whose longer side is at most maxSide cells (src itself
// when it is already that small).
func shrink(src *raster, maxSide int) *raster {
	gw, gh := src.w, src.h
	if long := max(gw, gh); long > maxSide {
		gw = max(1, (src.w*maxSide+long/2)/long)
		gh = max(1, (src.h*maxSide+long/2)/long)
	}
	if gw == src.w && gh == src.h {
		return src
	}
	g := &raster{w: gw, h: gh, pix: make([]rgb, gw*gh)}
	for cy := 0; cy < gh; cy++ {
		y0, y1 := span(cy, gh, src.h)
		for cx := 0; cx < gw; cx++ {
			x0, x1 := span(cx, gw, src.w)
			var sr, sg, sb, n int
			for y := y0; y < y1; y++ {
				for _, p := range src.pix[y*src.w+x0 : y*src.w+x1] {
					sr += int(p.R)
					sg += int(p.G)
					sb += int(p.B)
					n++
				}
			}
			g.pix[cy*gw+cx] = rgb{uint8((sr + n/2) / n), uint8((sg + n/2) / n), uint8((sb + n/2) / n)}
		}
	}
	return g
}

// Downscale flattens img (transparent pixels over white) and box-averages it to at most
// maxSide pixels on its longer side: the picture a vision model is shown.
func Downscale(img image.Image, maxSide int) *image.RGBA {
	return shrink(toRaster(img), maxSide).image()
}

// image returns r as an image.RGBA.
func (r *raster) image() *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.w, r.h))
	for i, p := range r.pix {
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = p.R, p.G, p.B, 0xff
	}
	return out
}
