package editdistance

import (
	"math"
	"testing"
	"unicode/utf8"
)

func TestLevenshteinCountsEditsOverCodePoints(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		want int
	}{
		{"two empty texts are equal", "", "", 0},
		{"an empty text needs every code point inserted", "", "héllo", 5},
		{"kitten to sitting needs three edits", "kitten", "sitting", 3},
		{"equal texts need none", "draft", "draft", 0},
		{"a multi-byte letter is one substitution, not two", "café", "cafe", 1},
		{"an emoji is one code point", "ok 👍", "ok 👎", 1},
		{"CJK text counts characters", "你好世界", "你好", 2},
		{"a transposition is two edits", "ab", "ba", 2},
		{"order of arguments does not matter", "sitting", "kitten", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Levenshtein(c.a, c.b); got != c.want {
				t.Fatalf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
			}
		})
	}
}

func TestNormalizedDividesByTheLongerLength(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		want float64
	}{
		{"both empty is zero", "", "", 0},
		{"unchanged is zero", "same text", "same text", 0},
		{"entirely rewritten is one", "abc", "xyz", 1},
		{"from empty is one", "", "new", 1},
		{"kitten to sitting is 3/7", "kitten", "sitting", 3.0 / 7},
		{"one accent in four letters is a quarter", "café", "cafe", 0.25},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Normalized(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
				t.Fatalf("Normalized(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}

// FuzzNormalized checks the metric's properties on arbitrary texts: it lies in [0, 1], is
// symmetric, is 0 exactly when the texts are equal (as code-point sequences), and the
// underlying distance obeys the triangle inequality and is bounded by the longer length.
func FuzzNormalized(f *testing.F) {
	seeds := [][3]string{
		{"", "", ""},
		{"kitten", "sitting", "knitting"},
		{"café", "cafe", "cafés"},
		{"👍", "👎", ""},
		{"\xff\xfe", "\xfe", "x"},
		{"The draft text.", "The final text!", "Another text."},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if utf8.RuneCountInString(a) > 512 || utf8.RuneCountInString(b) > 512 || utf8.RuneCountInString(c) > 512 {
			t.Skip("bounded to keep each case fast")
		}
		d := Normalized(a, b)
		if d < 0 || d > 1 || math.IsNaN(d) {
			t.Fatalf("Normalized(%q, %q) = %v, outside [0, 1]", a, b, d)
		}
		if r := Normalized(b, a); r != d {
			t.Fatalf("not symmetric: %v vs %v", d, r)
		}
		equal := string([]rune(a)) == string([]rune(b))
		if (d == 0) != equal {
			t.Fatalf("Normalized(%q, %q) = %v but equal = %v", a, b, d, equal)
		}
		ab, bc, ac := Levenshtein(a, b), Levenshtein(b, c), Levenshtein(a, c)
		if ac > ab+bc {
			t.Fatalf("triangle inequality broken: d(a,c)=%d > d(a,b)=%d + d(b,c)=%d", ac, ab, bc)
		}
		la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		if ab < max(la, lb)-min(la, lb) || ab > max(la, lb) {
			t.Fatalf("d(a,b)=%d outside [|la-lb|, max(la,lb)] = [%d, %d]", ab, max(la, lb)-min(la, lb), max(la, lb))
		}
	})
}
