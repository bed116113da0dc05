package cli

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character a terminal could act on written as
// a Go escape (see AppendEscaped); s itself when there is none, without
// allocating.
func Escape(s string) string {
	for i, r := range s {
		if needsEscape(r) || r == utf8.RuneError && isInvalidAt(s, i) {
			return string(AppendEscaped(make([]byte, 0, len(s)+8), s))
		}
	}
	return s
}

// AppendEscaped appends s to b for a terminal or a text file: control
// characters (C0, DEL, C1), other characters Unicode does not call
// printable (format and bidirectional controls, separators other than the
// ASCII space) and the backslash are written as Go escapes (\n, \x1b,
// \u009b, \u202e, \\), and a byte that is not UTF-8 as \xNN. Names from a
// server or a configuration cannot then clear a terminal, move its cursor
// or set its title.
func AppendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\x`...)
			b = appendHex(b, uint32(s[i]), 2)
		case !needsEscape(r):
			b = append(b, s[i:i+n]...)
		default:
			b = appendRuneEscape(b, r)
		}
		i += n
	}
	return b
}

// AppendCSVField appends f to b as one CSV field: escaped as Escape does,
// then quoted if it holds a quote, a comma or a line break.
func AppendCSVField(b []byte, f string) []byte {
	f = Escape(f)
	if !strings.ContainsAny(f, "\",\r\n") {
		return append(b, f...)
	}
	return append(append(b, '"'), strings.ReplaceAll(f, `"`, `""`)+`"`...)
}

// AppendJSONString appends s to b as a JSON string, quotes included, with
// every character AppendEscaped would escape written as \uXXXX (a
// surrogate pair above U+FFFF), so the text stays exact for a JSON reader
// and inert on a terminal. A byte that is not UTF-8 becomes U+FFFD, as
// encoding/json does.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == utf8.RuneError:
			b = append(b, `\ufffd`...)
		case !needsEscape(r):
			b = utf8.AppendRune(b, r)
		case r > 0xFFFF:
			r -= 0x10000
			b = appendU(appendU(b, 0xD800+r>>10), 0xDC00+r&0x3FF)
		default:
			b = appendU(b, r)
		}
	}
	return append(b, '"')
}

func needsEscape(r rune) bool { return r == '\\' || !strconv.IsPrint(r) }

func isInvalidAt(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n == 1
}

// shortEscapes are the characters Go writes as a backslash and a letter,
// and those letters, in the same order.
const (
	shortEscapes       = "\\\a\b\f\n\r\t\v"
	shortEscapeLetters = `\abfnrtv`
)

func appendRuneEscape(b []byte, r rune) []byte {
	if i := strings.IndexRune(shortEscapes, r); i >= 0 {
		return append(b, '\\', shortEscapeLetters[i])
	}
	switch {
	case r < 0x80:
		return appendHex(append(b, `\x`...), uint32(r), 2)
	case r <= 0xFFFF:
		return appendU(b, r)
	}
	return appendHex(append(b, `\U`...), uint32(r), 8)
}

func appendU(b []byte, r rune) []byte { return appendHex(append(b, `\u`...), uint32(r), 4) }

func appendHex(b []byte, v uint32, digits int) []byte {
	const hex = "0123456789abcdef"
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b = append(b, hex[v>>uint(shift)&0xF])
	}
	return b
}
