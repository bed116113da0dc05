package marte2

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on the input Parse accepts; each is checked before the input is
// trusted further.
const (
	MaxFileSize = 4 << 20  // bytes of a configuration file
	MaxDepth    = 64       // nesting of blocks
	MaxTokenLen = 16 << 10 // bytes of one name or value
)

// Pos is a position in the file: Line and Col are 1-based, Col counts
// characters.
type Pos struct {
	Line, Col int
}

// Error is a positioned problem in a MARTe2 file.
type Error struct {
	File string
	Pos
	Msg string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokString         // a bare or quoted string, or a number
	tokTerm           // one of = { } ( ) |
)

type token struct {
	kind   tokKind
	text   string // the string without quotes, escapes resolved; the terminal
	quoted bool
	pos    Pos
	off    int // byte offset of its first character
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokTerm:
		return "'" + t.text + "'"
	}
	if t.quoted {
		return fmt.Sprintf("%q", t.text)
	}
	return t.text
}

// lexer splits a MARTe2 configuration into tokens the way MARTe2's
// LexicalAnalyzer does with the standard grammar: separators are space,
// tab, CR, LF and ',' (and ';', which MARTe2 does not separate on but
// hand-written examples use); terminals are = { } ( ) |; comments are //
// to the end of the line and /* */; a string starting with '"' runs to the
// next unescaped '"'; \n \t \r \" \\ are escapes in any string, and a
// backslash before any other character is kept.
type lexer struct {
	file string
	src  string
	off  int
	pos  Pos
}

func isSeparator(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ';'
}

func isTerminal(c byte) bool {
	return c == '=' || c == '{' || c == '}' || c == '(' || c == ')' || c == '|'
}

func (l *lexer) errorf(p Pos, format string, args ...any) error {
	return &Error{File: l.file, Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// advance moves past one byte, keeping the position in characters.
func (l *lexer) advance() {
	c := l.src[l.off]
	l.off++
	if c == '\n' {
		l.pos.Line++
		l.pos.Col = 1
	} else if utf8.RuneStart(c) { // not a continuation byte of a character
		l.pos.Col++
	}
}

func (l *lexer) startsWith(s string) bool { return strings.HasPrefix(l.src[l.off:], s) }

// skip passes separators and comments.
func (l *lexer) skip() error {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case isSeparator(c):
			l.advance()
		case c != '/':
			return nil
		case l.startsWith("//"):
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance()
			}
		case l.startsWith("/*"):
			start := l.pos
			end := strings.Index(l.src[l.off+2:], "*/")
			if end < 0 {
				return l.errorf(start, "comment never closed: '/*' without '*/'")
			}
			for stop := l.off + 2 + end + 2; l.off < stop; {
				l.advance()
			}
		default:
			return nil
		}
	}
	return nil
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	if err := l.skip(); err != nil {
		return token{}, err
	}
	p, off := l.pos, l.off
	if l.off >= len(l.src) {
		return token{kind: tokEOF, pos: p, off: off}, nil
	}
	c := l.src[l.off]
	var t token
	var err error
	switch {
	case c == 0:
		return token{}, l.errorf(p, "NUL byte: not a text file")
	case isTerminal(c):
		l.advance()
		t = token{kind: tokTerm, text: l.src[l.off-1 : l.off], pos: p}
	case c == '"':
		t, err = l.quoted(p)
	default:
		t, err = l.bare(p)
	}
	t.off = off
	return t, err
}

// quoted reads a string from its opening quote to its closing one.
func (l *lexer) quoted(p Pos) (token, error) {
	l.advance()
	start := l.off
	var b *strings.Builder // only when an escape changes the text
	for {
		if l.off >= len(l.src) {
			return token{}, l.errorf(p, "string never closed: '\"' without a closing '\"'")
		}
		if l.off-start > MaxTokenLen {
			return token{}, l.errorf(p, "string longer than %d bytes", MaxTokenLen)
		}
		c := l.src[l.off]
		switch c {
		case 0:
			return token{}, l.errorf(l.pos, "NUL byte: not a text file")
		case '"':
			text := l.text(start, b)
			l.advance()
			return token{kind: tokString, text: text, quoted: true, pos: p}, nil
		}
		if err := l.consume(&b, start); err != nil {
			return token{}, err
		}
	}
}

// multibyte moves past the character of two or more bytes at l.off,
// collecting it in b when b is not nil, and refuses bytes that are not
// UTF-8: names and values go into the TOML, which is UTF-8, and
// replacing them would change them silently.
func (l *lexer) multibyte(b *strings.Builder) error {
	r, size := utf8.DecodeRuneInString(l.src[l.off:])
	if r == utf8.RuneError && size <= 1 {
		return l.errorf(l.pos, "byte 0x%02x is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)", l.src[l.off])
	}
	if b != nil {
		b.WriteString(l.src[l.off : l.off+size])
	}
	for range size {
		l.advance()
	}
	return nil
}

// consume moves past the character at l.off, refusing a byte that is not
// UTF-8. A backslash starts an escape; from the first escape on, the
// token's text differs from the input and is collected in *b.
func (l *lexer) consume(b **strings.Builder, start int) error {
	c := l.src[l.off]
	if c >= utf8.RuneSelf {
		return l.multibyte(*b)
	}
	if c == '\\' {
		if *b == nil {
			*b = &strings.Builder{}
			(*b).WriteString(l.src[start:l.off])
		}
		l.advance()
		if l.off < len(l.src) && l.src[l.off] >= utf8.RuneSelf {
			(*b).WriteByte('\\') // kept before a character that is no escape
			return l.multibyte(*b)
		}
		l.escape(*b)
		return nil
	}
	if *b != nil {
		(*b).WriteByte(c)
	}
	l.advance()
	return nil
}

// text returns the token read from start: the input itself, or b when an
// escape changed it.
func (l *lexer) text(start int, b *strings.Builder) string {
	if b != nil {
		return b.String()
	}
	return l.src[start:l.off]
}

// escape writes the character after a backslash, resolved, into b; a
// backslash at the end of the file is kept.
func (l *lexer) escape(b *strings.Builder) {
	if l.off >= len(l.src) {
		b.WriteByte('\\')
		return
	}
	c := l.src[l.off]
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '"', '\\':
		b.WriteByte(c)
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	l.advance()
}

// bare reads an unquoted string: up to a separator, a terminal or a
// comment.
func (l *lexer) bare(p Pos) (token, error) {
	start := l.off
	var b *strings.Builder
	for l.off < len(l.src) {
		if l.off-start > MaxTokenLen {
			return token{}, l.errorf(p, "name or value longer than %d bytes", MaxTokenLen)
		}
		c := l.src[l.off]
		if c == 0 {
			return token{}, l.errorf(l.pos, "NUL byte: not a text file")
		}
		if isSeparator(c) || isTerminal(c) || (c == '/' && (l.startsWith("//") || l.startsWith("/*"))) {
			break
		}
		if err := l.consume(&b, start); err != nil {
			return token{}, err
		}
	}
	if l.off-start > MaxTokenLen {
		return token{}, l.errorf(p, "name or value longer than %d bytes", MaxTokenLen)
	}
	return token{kind: tokString, text: l.text(start, b), pos: p}, nil
}
