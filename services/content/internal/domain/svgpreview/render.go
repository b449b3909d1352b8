package svgpreview

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"math"
	"slices"
	"strconv"
)

// rendering is what the SVG shows: every grid cell belongs to one group, painted with one
// colour. Groups 0..len(zones)-1 are the element zones; the rest are the other palette colours.
type rendering struct {
	w, h   int   // grid
	group  []int // per cell
	colour []rgb // per group
	keys   []string
}

// newRendering paints each group with its dominant colour in the grid.
func newRendering(g *raster, group []int, groups int, keys []string) *rendering {
	return &rendering{w: g.w, h: g.h, group: group, colour: dominant(g, group, groups), keys: keys}
}

// dominant is, per group, the per-channel median colour of its cells: the colour a person
// names for the region, unmoved by the blended cells along its edges (or a JPEG's ringing)
// that a mean would take in.
func dominant(g *raster, group []int, groups int) []rgb {
	hist := make([][3][256]int, groups)
	count := make([]int, groups)
	for i, gr := range group {
		p := g.pix[i]
		h := &hist[gr]
		h[0][p.R]++
		h[1][p.G]++
		h[2][p.B]++
		count[gr]++
	}
	out := make([]rgb, groups)
	var ch [3]uint8
	for gr := range hist {
		if count[gr] == 0 {
			continue
		}
		for c := range 3 {
			half, seen := (count[gr]+1)/2, 0
			for v, n := range hist[gr][c] {
				if seen += n; seen >= half {
					ch[c] = uint8(v)
					break
				}
			}
		}
		out[gr] = rgb{ch[0], ch[1], ch[2]}
	}
	return out
}

// svg draws each group as one <path> of axis-aligned rectangles (runs of a row, merged down
// while the rows below repeat them) in grid units, scaled to the source size by the viewBox.
// An element's zone is <path id="zone-KEY" data-element-key="KEY" fill="#rrggbb">, so a UI
// can recolour it by key; the other colours sit in <g id="static">.
func (r *rendering) svg(width, height int) []byte {
	type run struct{ x0, x1, group int }
	type rect struct {
		run
		y0, y1 int
	}
	var rects []rect
	open := map[run]int{} // run -> first row
	for y := 0; y <= r.h; y++ {
		var row []run
		if y < r.h {
			for x := 0; x < r.w; {
				gr := r.group[y*r.w+x]
				x1 := x + 1
				for x1 < r.w && r.group[y*r.w+x1] == gr {
					x1++
				}
				row = append(row, run{x, x1, gr})
				x = x1
			}
		}
		next := make(map[run]int, len(row))
		for _, ru := range row {
			if y0, ok := open[ru]; ok {
				next[ru] = y0
				delete(open, ru)
			} else {
				next[ru] = y
			}
		}
		for ru, y0 := range open {
			rects = append(rects, rect{ru, y0, y})
		}
		open = next
	}
	// Top-to-bottom, left-to-right: the same image always gives the same bytes.
	slices.SortFunc(rects, func(a, b rect) int {
		if a.y0 != b.y0 {
			return a.y0 - b.y0
		}
		return a.x0 - b.x0
	})
	paths := make([]bytes.Buffer, len(r.colour))
	for _, rc := range rects {
		w := rc.x1 - rc.x0
		fmt.Fprintf(&paths[rc.group], "M%d %dh%dv%dh-%dz", rc.x0, rc.y0, w, rc.y1-rc.y0, w)
	}

	var out bytes.Buffer
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" preserveAspectRatio="none" shape-rendering="crispEdges">`,
		width, height, r.w, r.h)
	out.WriteString("\n<g id=\"static\">\n")
	for gr := len(r.keys); gr < len(r.colour); gr++ {
		if paths[gr].Len() > 0 {
			fmt.Fprintf(&out, "<path fill=\"%s\" d=\"%s\"/>\n", r.colour[gr].Hex(), paths[gr].String())
		}
	}
	out.WriteString("</g>\n<g id=\"zones\">\n")
	for gr, key := range r.keys {
		k := attr(key)
		fmt.Fprintf(&out, "<path id=\"zone-%s\" data-element-key=\"%s\" fill=\"%s\" d=\"%s\"/>\n", k, k, r.colour[gr].Hex(), paths[gr].String())
	}
	out.WriteString("</g>\n</svg>\n")
	return out.Bytes()
}

func attr(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// thumbnail renders the zones at most side pixels on the longer side as a PNG.
func (r *rendering) thumbnail(width, height, side int) ([]byte, error) {
	tw, th := width, height
	if long := max(tw, th); long > side {
		tw = max(1, (width*side+long/2)/long)
		th = max(1, (height*side+long/2)/long)
	}
	img := image.NewRGBA(image.Rect(0, 0, tw, th))
	for y := 0; y < th; y++ {
		cy := min(r.h-1, y*r.h/th)
		for x := 0; x < tw; x++ {
			cx := min(r.w-1, x*r.w/tw)
			c := r.colour[r.group[cy*r.w+cx]]
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = c.R, c.G, c.B, 0xff
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxQualitySamples bounds the pixels compared by quality (a regular lattice over the image).
const maxQualitySamples = 2_000_000

// quality measures how well the rendering reproduces the source image: 1 - (mean CIE76 ΔE
// between each source pixel and the colour the SVG paints there) / 100, clamped to 0..1.
// 100 is the lightness range of Lab, so 1 is exact and a white-for-black answer is 0.
func (r *rendering) quality(src *raster) float64 {
	step := 1
	if n := src.w * src.h; n > maxQualitySamples {
		step = int(math.Ceil(math.Sqrt(float64(n) / maxQualitySamples)))
	}
	col := cellIndex(src.w, r.w)
	row := cellIndex(src.h, r.h)
	labs := make([]lab, len(r.colour))
	for i, c := range r.colour {
		labs[i] = c.lab()
	}
	var sum float64
	var n int
	for y := 0; y < src.h; y += step {
		for x := 0; x < src.w; x += step {
			painted := labs[r.group[row[y]*r.w+col[x]]]
			sum += math.Sqrt(src.at(x, y).lab().dist2(painted))
			n++
		}
	}
	q := 1 - sum/float64(n)/100
	q = math.Max(0, math.Min(1, q))
	v, _ := strconv.ParseFloat(strconv.FormatFloat(q, 'f', 4, 64), 64)
	return v
}

// cellIndex maps each of size pixels to its grid cell (the inverse of span).
func cellIndex(size, cells int) []int {
	out := make([]int, size)
	for c := 0; c < cells; c++ {
		lo, hi := span(c, cells, size)
		for p := lo; p < hi && p < size; p++ {
			out[p] = c
		}
	}
	return out
}
