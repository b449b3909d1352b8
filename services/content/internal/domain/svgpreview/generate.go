// Package svgpreview turns an image into an SVG colour preview: the image is split into flat
// colour zones, each requested colour element (element_key + its current colour) is matched to
// the zone of that colour, and the SVG draws every zone as a path a UI can recolour by key.
//
// The built-in detector is pure Go and deterministic: the image is box-averaged onto a grid
// (at most Options.GridSize cells on the longer side), its colours are clustered with weighted
// k-means in CIE Lab (seeded with the requested colours, then farthest-point), specks are
// merged into their surroundings, and each key takes the cluster nearest its colour (one
// cluster per key while clusters remain). An external vision model (ZoneSource) may propose
// the zones instead; any failure of it falls back to the built-in detector.
package svgpreview

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
)

// ColorKey is a colour element to find in the image: its key and the colour it has there.
type ColorKey struct {
	ElementKey   string `json:"element_key"`
	CurrentColor string `json:"current_color"`
}

// Zone is where an element's colour was found.
type Zone struct {
	ElementKey string
	// Color is the detected colour, "#rrggbb".
	Color string
	// BBox is [x, y, width, height] in source image pixels.
	BBox [4]float64
}

// Preview is the generator's output.
type Preview struct {
	Width, Height int
	// MediaType of the source image (PNG, JPEG or WebP).
	MediaType string
	// SVG is the zone drawing (image/svg+xml).
	SVG []byte
	// Thumbnail is a PNG of the zones, at most Options.ThumbnailSize pixels on its longer side.
	Thumbnail []byte
	// Zones has one entry per requested key, in request order.
	Zones []Zone
	// Quality is how well the SVG reproduces the image, 0..1 (see rendering.quality).
	Quality float64
	// GeneratedByAI says the zones came from the vision model rather than the built-in detector.
	GeneratedByAI bool
}

// ZoneSource proposes a zone for every key; the vision model client implements it. Its
// answer is validated (every key once, colours, boxes inside the image) before it is used.
type ZoneSource interface {
	DetectZones(ctx context.Context, img image.Image, keys []ColorKey) ([]Zone, error)
}

// Options tune the generator; zero values take the defaults.
type Options struct {
	// GridSize is the longer side of the analysis grid in cells (default 512).
	GridSize int
	// ThumbnailSize is the longer side of the thumbnail in pixels (default 256).
	ThumbnailSize int
	// ExtraColors is how many palette colours the detector adds beyond the requested ones
	// (default 6): the background and the image's other colours.
	ExtraColors int
}

// Generator makes previews. It is safe for concurrent use.
type Generator struct {
	opts  Options
	model ZoneSource
	log   *slog.Logger
}

// ErrInvalidKeys means the requested keys are unusable (an empty or repeated element_key, a
// colour that is not #rrggbb).
var ErrInvalidKeys = errors.New("svgpreview: invalid colour keys")

// New returns a generator. model may be nil (built-in detector only).
func New(opts Options, model ZoneSource, log *slog.Logger) *Generator {
	if opts.GridSize <= 0 {
		opts.GridSize = 512
	}
	if opts.ThumbnailSize <= 0 {
		opts.ThumbnailSize = 256
	}
	if opts.ExtraColors <= 0 {
		opts.ExtraColors = 6
	}
	if log == nil {
		log = slog.Default()
	}
	return &Generator{opts: opts, model: model, log: log}
}

// Generate decodes data (PNG, JPEG or WebP) and makes its preview for keys. The error wraps
// ErrUnsupportedImage or ErrInvalidKeys when the input is at fault (no retry helps); the
// vision model's failures are not errors (the built-in detector answers instead).
func (g *Generator) Generate(ctx context.Context, data []byte, keys []ColorKey) (*Preview, error) {
	keyLabs := make([]lab, len(keys))
	seen := map[string]bool{}
	for i, k := range keys {
		if k.ElementKey == "" || seen[k.ElementKey] {
			return nil, fmt.Errorf("%w: element_key %q is empty or repeated", ErrInvalidKeys, k.ElementKey)
		}
		seen[k.ElementKey] = true
		c, err := ParseColor(k.CurrentColor)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidKeys, k.ElementKey, err)
		}
		keyLabs[i] = c.lab()
	}
	img, mt, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src := toRaster(img)
	grid := shrink(src, g.opts.GridSize)
	pal := palette(histogram(grid), keyLabs, min(64, len(keys)+g.opts.ExtraColors))
	lm := label(grid, pal)
	lm.despeckle(max(2, grid.w*grid.h/4000))
	present := make([]bool, len(pal))
	for _, l := range lm.label {
		present[l] = true
	}

	var (
		zones []Zone
		owner []int // per cell: the zone drawing it, -1 for none
		byAI  bool
	)
	if g.model != nil && len(keys) > 0 {
		proposed, err := g.model.DetectZones(ctx, img, keys)
		if err == nil {
			proposed, err = checkZones(proposed, keys, src.w, src.h)
		}
		if err != nil {
			g.log.WarnContext(ctx, "vision model failed; using the built-in colour-zone detector", slog.String("error", err.Error()))
		} else {
			zones, owner, byAI = proposed, ownAIZones(lm, pal, proposed, src.w, src.h), true
		}
	}
	if !byAI {
		zones, owner = builtInZones(grid, lm, pal, present, keys, keyLabs, src.w, src.h)
	}

	group := make([]int, len(lm.label))
	for i, l := range lm.label {
		if owner[i] >= 0 {
			group[i] = owner[i]
		} else {
			group[i] = len(keys) + l
		}
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.ElementKey
	}
	r := newRendering(grid, group, len(keys)+len(pal), names)
	thumb, err := r.thumbnail(src.w, src.h, g.opts.ThumbnailSize)
	if err != nil {
		return nil, fmt.Errorf("svgpreview: thumbnail: %w", err)
	}
	return &Preview{
		Width: src.w, Height: src.h, MediaType: mt,
		SVG: r.svg(src.w, src.h), Thumbnail: thumb,
		Zones: zones, Quality: r.quality(src), GeneratedByAI: byAI,
	}, nil
}

// builtInZones gives each key the cells of its palette colour; the detected colour is their
// dominant colour and the box their extent.
func builtInZones(grid *raster, lm *labelMap, pal []lab, present []bool, keys []ColorKey, keyLabs []lab, w, h int) ([]Zone, []int) {
	// Only colours that still cover cells after despeckling can be a zone.
	var live []int
	var livePal []lab
	for c, ok := range present {
		if ok {
			live = append(live, c)
			livePal = append(livePal, pal[c])
		}
	}
	chosen := assignKeys(keyLabs, livePal)
	labelOf := make([]int, len(keys))
	zoneOfLabel := map[int]int{}
	for k, c := range chosen {
		labelOf[k] = live[c]
		if _, ok := zoneOfLabel[live[c]]; !ok {
			zoneOfLabel[live[c]] = k // a colour shared by several keys is drawn by the first
		}
	}
	owner := make([]int, len(lm.label))
	boxes := make([]bbox, len(pal))
	for i := range boxes {
		boxes[i] = emptyBox()
	}
	for i, l := range lm.label {
		owner[i] = -1
		if z, ok := zoneOfLabel[l]; ok {
			owner[i] = z
		}
		boxes[l].add(i%lm.w, i/lm.w)
	}
	colours := dominant(grid, lm.label, len(pal))
	zones := make([]Zone, len(keys))
	for k, key := range keys {
		l := labelOf[k]
		zones[k] = Zone{ElementKey: key.ElementKey, Color: colours[l].Hex(), BBox: boxes[l].source(lm, w, h)}
	}
	return zones, owner
}

// checkZones keeps one valid zone per requested key, in request order, with its box clipped
// to the image; a missing key, a bad colour or a box outside the image refuses the answer.
func checkZones(zs []Zone, keys []ColorKey, w, h int) ([]Zone, error) {
	byKey := map[string]Zone{}
	for _, z := range zs {
		if _, dup := byKey[z.ElementKey]; dup {
			return nil, fmt.Errorf("zone %q appears twice", z.ElementKey)
		}
		byKey[z.ElementKey] = z
	}
	out := make([]Zone, len(keys))
	for i, k := range keys {
		z, ok := byKey[k.ElementKey]
		if !ok {
			return nil, fmt.Errorf("no zone for %q", k.ElementKey)
		}
		c, err := ParseColor(z.Color)
		if err != nil {
			return nil, fmt.Errorf("zone %q: %w", k.ElementKey, err)
		}
		b := z.BBox
		for _, v := range b {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("zone %q: bbox is not finite", k.ElementKey)
			}
		}
		x0, y0 := math.Max(0, b[0]), math.Max(0, b[1])
		x1, y1 := math.Min(float64(w), b[0]+b[2]), math.Min(float64(h), b[1]+b[3])
		if b[2] <= 0 || b[3] <= 0 || x1 <= x0 || y1 <= y0 {
			return nil, fmt.Errorf("zone %q: bbox %v is empty or outside the %dx%d image", k.ElementKey, b, w, h)
		}
		out[i] = Zone{ElementKey: k.ElementKey, Color: c.Hex(), BBox: [4]float64{x0, y0, x1 - x0, y1 - y0}}
	}
	return out, nil
}

// ownAIZones draws each proposed zone as the cells inside its box whose palette colour is
// the one nearest the proposed colour among the colours present in the box. A cell claimed
// by an earlier zone stays with it.
func ownAIZones(lm *labelMap, pal []lab, zones []Zone, w, h int) []int {
	owner := make([]int, len(lm.label))
	for i := range owner {
		owner[i] = -1
	}
	col, row := cellIndex(w, lm.w), cellIndex(h, lm.h)
	for z, zone := range zones {
		b := zone.BBox
		cx0, cy0 := col[int(b[0])], row[int(b[1])]
		cx1 := col[min(w-1, int(math.Ceil(b[0]+b[2]))-1)]
		cy1 := row[min(h-1, int(math.Ceil(b[1]+b[3]))-1)]
		c, _ := ParseColor(zone.Color)
		want := c.lab()
		best, bestD := -1, math.Inf(1)
		for y := cy0; y <= cy1; y++ {
			for x := cx0; x <= cx1; x++ {
				l := lm.label[y*lm.w+x]
				if d := pal[l].dist2(want); d < bestD {
					best, bestD = l, d
				}
			}
		}
		for y := cy0; y <= cy1; y++ {
			for x := cx0; x <= cx1; x++ {
				if i := y*lm.w + x; lm.label[i] == best && owner[i] < 0 {
					owner[i] = z
				}
			}
		}
	}
	return owner
}
