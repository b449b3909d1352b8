package editdistance

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune(rune('a' + r.IntN(26)))
	}
	return b.String()
}

// reference is the textbook full-table Levenshtein distance.
func reference(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+c)
		}
	}
	return d[len(ra)][len(rb)]
}

func TestBoundedEqualsTheFullTableOnTextsItCanAfford(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		a := randomText(r, r.IntN(200))
		// b is a with a few edits, or an unrelated text.
		b := []rune(a)
		for range r.IntN(40) {
			if len(b) == 0 {
				break
			}
			b[r.IntN(len(b))] = rune('a' + r.IntN(26))
		}
		texts := [][2]string{{a, string(b)}, {a, randomText(r, r.IntN(200))}, {a, a + randomText(r, r.IntN(100))}}
		for _, p := range texts {
			got, want := Bounded(p[0], p[1]), reference(p[0], p[1])
			if !got.Exact || got.Edits != want {
				t.Fatalf("Bounded(%q, %q) = %+v, want %d exactly", p[0], p[1], got, want)
			}
		}
	}
}

func TestBoundedStaysWithinItsWorkOnLongTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name string
		a, b string
		// the true distance is at least minEdits
		minEdits int
	}{
		{"20k against 50k code points", randomText(r, 20000), randomText(r, 50000), 30000},
		{"two unrelated texts of 50k", randomText(r, 50000), randomText(r, 50000), 1},
		{"two unrelated texts of 262,144", randomText(r, 262144), randomText(r, 262144), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Bounded(c.a, c.b)
			if got.Work > MaxWork {
				t.Fatalf("filled %d cells, above MaxWork %d", got.Work, MaxWork)
			}
			if got.Exact || got.Edits < c.minEdits || got.Edits > max(len(c.a), len(c.b)) {
				t.Fatalf("result %+v: want a lower bound of at least %d", got, c.minEdits)
			}
			if n := got.Normalized(); n <= 0 || n > 1 {
				t.Fatalf("normalized %v", n)
			}
		})
	}
}

func TestBoundedIsExactForFewEditsInLongTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a := []rune(randomText(r, 100000))
	b := append([]rune(nil), a...)
	// 20 substitutions spread over the text, and one insertion.
	for i := range 20 {
		p := i * 5000
		b[p] = 'A' // not a lower-case letter: always a change
	}
	b = append(b[:50001], append([]rune("Z"), b[50001:]...)...)
	got := Bounded(string(a), string(b))
	if !got.Exact || got.Edits != 21 || got.Work > MaxWork {
		t.Fatalf("result %+v, want 21 edits exactly within MaxWork", got)
	}
}
