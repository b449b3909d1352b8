package svgpreview

import "math"

// bin is one cell of the colour histogram: how many grid cells fall in it and their mean Lab.
type bin struct {
	n   int
	lab lab
}

// histogram buckets the grid's colours at 5 bits per channel; k-means then runs over at most
// 32768 weighted points instead of every cell.
func histogram(g *raster) []bin {
	type acc struct {
		n       int
		l, a, b float64
	}
	var sums [1 << 15]acc
	for _, p := range g.pix {
		i := int(p.R>>3)<<10 | int(p.G>>3)<<5 | int(p.B>>3)
		c := p.lab()
		s := &sums[i]
		s.n++
		s.l += c.L
		s.a += c.A
		s.b += c.B
	}
	var out []bin
	for _, s := range sums {
		if s.n > 0 {
			f := float64(s.n)
			out = append(out, bin{n: s.n, lab: lab{s.l / f, s.a / f, s.b / f}})
		}
	}
	return out
}

// palette clusters the histogram into at most k colours with weighted k-means in Lab. The
// seeds are the requested colours (so each element's colour gets a cluster of its own when the
// image has it) and then, deterministically, the bin with the largest count-weighted distance
// to the seeds so far (k-means++ without the dice). Clusters left empty are dropped and
// clusters closer than mergeDeltaE merged.
func palette(bins []bin, seeds []lab, k int) []lab {
	cent := make([]lab, 0, k)
	for _, s := range seeds {
		if len(cent) == k {
			break
		}
		dup := false
		for _, c := range cent {
			if c.dist2(s) < 1 {
				dup = true
				break
			}
		}
		if !dup {
			cent = append(cent, s)
		}
	}
	if len(cent) == 0 && len(bins) > 0 {
		best := 0
		for i, b := range bins {
			if b.n > bins[best].n {
				best = i
			}
		}
		cent = append(cent, bins[best].lab)
	}
	// d[i] is bin i's squared distance to the nearest centroid so far.
	d := make([]float64, len(bins))
	for i, b := range bins {
		d[i] = math.Inf(1)
		for _, c := range cent {
			d[i] = min(d[i], b.lab.dist2(c))
		}
	}
	for len(cent) < k {
		best, bestScore := -1, 1.0 // a bin within 1 ΔE of a centroid adds nothing
		for i, b := range bins {
			if s := d[i] * float64(b.n); s > bestScore && d[i] > 1 {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			break // fewer distinct colours than k
		}
		c := bins[best].lab
		cent = append(cent, c)
		for i, b := range bins {
			d[i] = min(d[i], b.lab.dist2(c))
		}
	}

	assign := make([]int, len(bins))
	for iter := 0; iter < 30; iter++ {
		for i, b := range bins {
			assign[i] = nearest(cent, b.lab)
		}
		sums := make([]lab, len(cent))
		counts := make([]float64, len(cent))
		for i, b := range bins {
			c, f := assign[i], float64(b.n)
			sums[c].L += b.lab.L * f
			sums[c].A += b.lab.A * f
			sums[c].B += b.lab.B * f
			counts[c] += f
		}
		moved := 0.0
		for c := range cent {
			if counts[c] == 0 {
				continue // kept in place; dropped below when it stays empty
			}
			next := lab{sums[c].L / counts[c], sums[c].A / counts[c], sums[c].B / counts[c]}
			moved = max(moved, next.dist2(cent[c]))
			cent[c] = next
		}
		if moved < 0.01 {
			break
		}
	}
	weight := make([]float64, len(cent))
	for i, b := range bins {
		weight[assign[i]] += float64(b.n)
	}
	return mergeClose(cent, weight)
}

// mergeDeltaE is the colour difference under which two clusters are one colour: a flat
// region with compression noise would otherwise split into several clusters, and its element
// would get only part of it.
const mergeDeltaE = 8

// mergeClose drops empty clusters and merges, closest pair first, clusters nearer than
// mergeDeltaE into their weighted mean.
func mergeClose(cent []lab, weight []float64) []lab {
	var out []lab
	var w []float64
	for c := range cent {
		if weight[c] > 0 {
			out, w = append(out, cent[c]), append(w, weight[c])
		}
	}
	for {
		bi, bj, bd := -1, -1, float64(mergeDeltaE*mergeDeltaE)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if d := out[i].dist2(out[j]); d < bd {
					bi, bj, bd = i, j, d
				}
			}
		}
		if bi < 0 {
			return out
		}
		t := w[bi] + w[bj]
		out[bi] = lab{
			(out[bi].L*w[bi] + out[bj].L*w[bj]) / t,
			(out[bi].A*w[bi] + out[bj].A*w[bj]) / t,
			(out[bi].B*w[bi] + out[bj].B*w[bj]) / t,
		}
		w[bi] = t
		out, w = append(out[:bj], out[bj+1:]...), append(w[:bj], w[bj+1:]...)
	}
}

// nearest is the index of the centroid closest to p (the first on a tie).
func nearest(cent []lab, p lab) int {
	best, bestD := 0, math.Inf(1)
	for i, c := range cent {
		if d := p.dist2(c); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}
