// Package suggest finds the valid name closest to a misspelt one, for "did you mean" hints.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// MaxLen bounds the names compared: a longer word or candidate is never
// suggested, so the cost of a lookup stays small whatever the input.
const MaxLen = 64

// Closest returns the candidate nearest to word, or "" when none is near
// enough to be a likely misspelling. Distance is the optimal string
// alignment (Damerau-Levenshtein without repeated edits of a substring)
// between the lower-cased names: one insertion, deletion, substitution or
// swap of neighbours counts 1. A candidate is near enough within
// max(1, n/3) edits, n the length of the shorter name in characters, so
// "confg" finds "config" and "Prot" finds "Port", but "loss" does not
// find "loss_every_n". On a tie the first candidate wins. A candidate
// equal to word is never returned.
func Closest(word string, candidates []string) string {
	if len(word) > MaxLen || word == "" {
		return ""
	}
	w := []rune(strings.ToLower(word))
	best, bestD := "", -1
	for _, c := range candidates {
		if c == word || c == "" || len(c) > MaxLen {
			continue
		}
		cr := []rune(strings.ToLower(c))
		limit := max(1, min(len(w), len(cr))/3)
		if len(w)-len(cr) > limit || len(cr)-len(w) > limit {
			continue // at least that many insertions or deletions
		}
		d := distance(w, cr)
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance returns the optimal string alignment distance between a and b,
// compared as they are (case matters), for tests and tools.
func Distance(a, b string) int {
	if utf8.RuneCountInString(a) > MaxLen || utf8.RuneCountInString(b) > MaxLen {
		return max(len(a), len(b))
	}
	return distance([]rune(a), []rune(b))
}

// distance is the optimal string alignment distance, in three rows.
func distance(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
