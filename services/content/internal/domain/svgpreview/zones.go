package svgpreview

import (
	"math"
	"slices"
)

// labelMap gives every grid cell the index of its palette colour.
type labelMap struct {
	w, h  int
	label []int
}

// label assigns each cell its nearest palette colour. Cells of one histogram bin share the
// answer, so the search runs once per distinct colour.
func label(g *raster, pal []lab) *labelMap {
	m := &labelMap{w: g.w, h: g.h, label: make([]int, len(g.pix))}
	memo := map[rgb]int{}
	for i, p := range g.pix {
		l, ok := memo[p]
		if !ok {
			l = nearest(pal, p.lab())
			memo[p] = l
		}
		m.label[i] = l
	}
	return m
}

// despeckle merges connected regions smaller than minArea cells into the label most common
// around them: isolated noise pixels would otherwise become SVG rectangles of their own and
// stretch the bounding boxes of the zones they belong to.
func (m *labelMap) despeckle(minArea int) {
	if minArea <= 1 {
		return
	}
	labels := 0
	for _, l := range m.label {
		labels = max(labels, l+1)
	}
	seen := make([]bool, len(m.label))
	around := make([]int, labels) // cells of each label bordering the region
	var region, stack, touched []int
	for start := range m.label {
		if seen[start] {
			continue
		}
		l := m.label[start]
		region, stack, touched = region[:0], append(stack[:0], start), touched[:0]
		seen[start] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			region = append(region, i)
			x, y := i%m.w, i/m.w
			for _, n := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if n[0] < 0 || n[1] < 0 || n[0] >= m.w || n[1] >= m.h {
					continue
				}
				j := n[1]*m.w + n[0]
				if nl := m.label[j]; nl != l {
					if around[nl] == 0 {
						touched = append(touched, nl)
					}
					around[nl]++
					continue
				}
				if !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		best, bestN := l, 0
		for _, nl := range touched {
			if n := around[nl]; n > bestN || (n == bestN && nl < best) {
				best, bestN = nl, n
			}
			around[nl] = 0
		}
		if len(region) >= minArea || bestN == 0 {
			continue
		}
		for _, i := range region {
			m.label[i] = best
		}
	}
}

// bbox is a bounding box in grid cells, inclusive.
type bbox struct{ x0, y0, x1, y1 int }

func emptyBox() bbox { return bbox{math.MaxInt, math.MaxInt, -1, -1} }

func (b *bbox) add(x, y int) {
	b.x0, b.y0 = min(b.x0, x), min(b.y0, y)
	b.x1, b.y1 = max(b.x1, x), max(b.y1, y)
}

// source maps the box to source pixels [x, y, width, height].
func (b bbox) source(m *labelMap, w, h int) [4]float64 {
	x0, _ := span(b.x0, m.w, w)
	_, x1 := span(b.x1, m.w, w)
	y0, _ := span(b.y0, m.h, h)
	_, y1 := span(b.y1, m.h, h)
	return [4]float64{float64(x0), float64(y0), float64(x1 - x0), float64(y1 - y0)}
}

// assignKeys gives each key a palette colour: the pairs closest in Lab first, each colour to
// one key while colours remain, so two keys of similar colours still get distinct zones.
// When there are more keys than colours, the rest take their nearest colour.
func assignKeys(keys []lab, pal []lab) []int {
	type pair struct {
		k, c int
		d    float64
	}
	pairs := make([]pair, 0, len(keys)*len(pal))
	for k, kc := range keys {
		for c, pc := range pal {
			pairs = append(pairs, pair{k, c, kc.dist2(pc)})
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		return 0
	})
	out := make([]int, len(keys))
	for i := range out {
		out[i] = -1
	}
	taken := make([]bool, len(pal))
	left := len(keys)
	for _, p := range pairs {
		if left == 0 {
			break
		}
		if out[p.k] >= 0 || taken[p.c] {
			continue
		}
		out[p.k], taken[p.c] = p.c, true
		left--
	}
	for k := range out {
		if out[k] < 0 {
			out[k] = nearest(pal, keys[k])
		}
	}
	return out
}
