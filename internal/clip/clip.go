// Package clip quotes text that came from outside (an HTTP request, a configuration file) for messages and logs, bounded in length.
package clip

import (
	"strconv"
	"unicode/utf8"
)

// Quote returns s as a Go string literal (control characters and invalid
// UTF-8 escaped), of at most max bytes of s: a longer s is cut at a rune
// boundary and followed by a marker giving the length of the whole, as in
// "abc"…(1048576 bytes). max ≤ 0 keeps nothing of s but the marker.
func Quote(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return strconv.Quote(Prefix(s, max)) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// Prefix returns the longest prefix of s of at most max bytes that does
// not end inside a UTF-8 sequence.
func Prefix(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	cut := max
	for cut > 0 && cut > max-(utf8.UTFMax-1) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
