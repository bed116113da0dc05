package cli

import (
	"unicode"
	"unicode/utf8"
)

// AppendText appends to b the text a char8 field holds, readable and
// unambiguous: the bytes up to the first NUL (all of them without one),
// with every printable UTF-8 character as it is, a backslash as \\, and
// every other byte (a control character, an invalid UTF-8 byte) as \xNN.
// It allocates only to grow b.
func AppendText(b, field []byte) []byte {
	for i := 0; i < len(field); {
		c := field[i]
		switch {
		case c == 0:
			return b
		case c == '\\':
			b = append(b, '\\', '\\')
			i++
			continue
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(field[i:])
		if r != utf8.RuneError && c >= 0x80 && unicode.IsPrint(r) {
			b = append(b, field[i:i+n]...)
			i += n
			continue
		}
		b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		i++
	}
	return b
}

const hexDigits = "0123456789abcdef"
