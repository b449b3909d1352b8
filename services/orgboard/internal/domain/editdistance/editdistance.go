// Package editdistance holds the edit distance edit-and-approve records between a draft and the approved text.
package editdistance

// MaxWork bounds the cells of the Levenshtein table one comparison fills: 2^24, under two
// tenths of a second of CPU, in memory proportional to the shorter text, whatever the lengths.
const MaxWork = 1 << 24

// firstBand is the number of edits the first pass allows; each further pass doubles it.
const firstBand = 64

// Result is a distance computed within MaxWork.
type Result struct {
	// Edits is the Levenshtein distance when Exact; otherwise a lower bound of it: the distance
	// is at least Edits.
	Edits int
	// Exact is false when the distance exceeds what MaxWork can confirm.
	Exact bool
	// Longest is the length in code points of the longer text.
	Longest int
	// Work is the number of table cells filled (at most MaxWork).
	Work int
}

// Normalized is Edits divided by Longest: 0 when the texts are equal (also when both are
// empty), 1 when no code point could be kept in place. When not Exact it is a lower bound.
func (r Result) Normalized() float64 {
	if r.Longest == 0 {
		return 0
	}
	return float64(r.Edits) / float64(r.Longest)
}

// Levenshtein is the least number of single code-point insertions, deletions and substitutions
// that turn a into b, computed exactly without bound. Invalid UTF-8 bytes count as one code
// point each (utf8.RuneError). Use Bounded on texts of untrusted length.
func Levenshtein(a, b string) int {
	return bounded([]rune(a), []rune(b), -1).Edits
}

// Bounded is the Levenshtein distance of a and b within MaxWork cells, after their common
// prefix and suffix are set aside. Only cells within a band of k edits of the diagonal are
// filled; k starts at 64 and doubles (or widens to what the remaining work affords) until the
// distance is confirmed or no wider band fits MaxWork. The distance is exact when it fits the
// last band: for two texts of 262,144 code points up to about 30 edits, for 10,000 code points
// a few hundred, for 1,000 code points the whole table. Beyond that Edits is a lower bound (Exact false): the
// larger of the length difference and the widest band that was exceeded.
func Bounded(a, b string) Result {
	return bounded([]rune(a), []rune(b), MaxWork)
}

// Normalized is Bounded(a, b).Normalized(): exact when the result is, else a lower bound.
func Normalized(a, b string) float64 { return Bounded(a, b).Normalized() }

// bounded runs Ukkonen's banded algorithm with a doubling band; maxWork < 0 means no bound.
func bounded(ra, rb []rune, maxWork int) Result {
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	res := Result{Longest: len(ra), Exact: true}
	// A common prefix and suffix cost no edit.
	for len(rb) > 0 && ra[0] == rb[0] {
		ra, rb = ra[1:], rb[1:]
	}
	for len(rb) > 0 && ra[len(ra)-1] == rb[len(rb)-1] {
		ra, rb = ra[:len(ra)-1], rb[:len(rb)-1]
	}
	n, m := len(ra), len(rb)
	if m == 0 {
		res.Edits = n
		return res
	}
	// Every extra code point of the longer text is one insertion, and what is left after the
	// common prefix and suffix differs in its first code point.
	lower := max(n-m, 1)
	res.Edits = lower
	for k := max(firstBand, lower); ; k *= 2 {
		k = min(k, n) // a band of n holds the whole table
		if maxWork >= 0 {
			// The widest band the remaining work affords, when the doubled one does not fit.
			k = min(k, ((maxWork-res.Work)/(n+1)-1)/2)
			if k < res.Edits {
				res.Exact = false
				return res
			}
		}
		d, work := band(ra, rb, k)
		res.Work += work
		if d <= k {
			res.Edits = d
			return res
		}
		res.Edits = k + 1 // the distance exceeds the band
	}
}

// band is the Levenshtein distance of ra (the longer) and rb when it is at most k, else a value
// above k; only cells with |i-j| <= k are filled. It stops early once a whole row exceeds k.
func band(ra, rb []rune, k int) (dist, work int) {
	n, m := len(ra), len(rb)
	over := k + 1
	prev, cur := make([]int, m+1), make([]int, m+1)
	for j := range prev {
		prev[j] = min(j, over)
	}
	for i := 1; i <= n; i++ {
		lo, hi := max(1, i-k), min(m, i+k)
		if lo == 1 {
			cur[0] = min(i, over)
		} else {
			cur[lo-1] = over
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			v := prev[j-1]
			if ra[i-1] != rb[j-1] {
				v++
			}
			if j <= i-1+k { // (i-1, j) lies in the previous row's band
				v = min(v, prev[j]+1)
			}
			v = min(v, cur[j-1]+1, over)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		work += hi - lo + 1
		if rowMin > k {
			return over, work
		}
		prev, cur = cur, prev
	}
	return prev[m], work
}
