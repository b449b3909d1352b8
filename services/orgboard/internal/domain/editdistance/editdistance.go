// Package editdistance measures how much a text was changed: the Levenshtein distance over
// Unicode code points, and its normalized form (0 unchanged .. 1 entirely rewritten) that
// edit-and-approve records between an agent's draft and the approved text.
package editdistance

import "unicode/utf8"

// Levenshtein is the least number of single code-point insertions, deletions and substitutions
// that turn a into b. Invalid UTF-8 bytes count as one code point each (utf8.RuneError).
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Keep the shorter text in the row: memory is O(min(len a, len b)).
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	if len(rb) == 0 {
		return len(ra)
	}
	row := make([]int, len(rb)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		diag := row[0] // row[i-1][j-1]
		row[0] = i
		for j := 1; j <= len(rb); j++ {
			up := row[j] // row[i-1][j]
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			row[j] = min(up+1, row[j-1]+1, diag+cost)
			diag = up
		}
	}
	return row[len(rb)]
}

// Normalized is Levenshtein(a, b) divided by the length in code points of the longer text: 0
// when a equals b (also when both are empty), 1 when no code point could be kept in place.
func Normalized(a, b string) float64 {
	longest := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	if longest == 0 {
		return 0
	}
	return float64(Levenshtein(a, b)) / float64(longest)
}
