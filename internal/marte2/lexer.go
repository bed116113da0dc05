package marte2

import (
	"fmt"
	"sort"
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
	end    int // byte offset just past its last character (its closing quote)
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
//
// A token's text is a substring of src unless an escape changes it; then
// it is in esc: written there when esc records (the parse), found there
// by the token's offset otherwise (reading a parsed value again). With
// esc nil the text of such a token is left empty (counting tokens).
type lexer struct {
	file string
	src  string
	off  int
	pos  Pos
	esc  *escapes
}

// escapes holds the resolved texts of the tokens whose escapes change
// them, in one buffer, in file order.
type escapes struct {
	record bool
	b      strings.Builder // while recording
	text   string          // the buffer, once recorded
	toks   []escTok
}

// escTok says where the resolved text of the token at off is in the
// buffer.
type escTok struct{ off, start, end int32 }

// add resolves the escapes of raw, the text of the token at off, into the
// buffer, and returns the text.
func (e *escapes) add(off int, raw string) string {
	start := e.b.Len()
	unescape(&e.b, raw)
	e.toks = append(e.toks, escTok{int32(off), int32(start), int32(e.b.Len())})
	return e.b.String()[start:]
}

// done ends the recording.
func (e *escapes) done() {
	e.record, e.text = false, e.b.String()
}

// find returns the resolved text of the token at off.
func (e *escapes) find(off int) string {
	i := sort.Search(len(e.toks), func(i int) bool { return int(e.toks[i].off) >= off })
	if i == len(e.toks) || int(e.toks[i].off) != off {
		return "" // not a token with escapes: never asked
	}
	t, text := e.toks[i], e.text
	if e.record {
		text = e.b.String()
	}
	return text[t.start:t.end]
}

// unescape writes raw into b with its escapes resolved: \n \t \r \" \\
// become the character; a backslash before any other character, or at
// the end, is kept.
func unescape(b *strings.Builder, raw string) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 == len(raw) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = raw[i]; c {
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
	}
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
		return token{kind: tokEOF, pos: p, off: off, end: off}, nil
	}
	c := l.src[l.off]
	var escaped bool
	var err error
	switch {
	case c == 0:
		return token{}, l.errorf(p, "NUL byte: not a text file")
	case isTerminal(c):
		l.advance()
		return token{kind: tokTerm, text: l.src[off:l.off], pos: p, off: off, end: l.off}, nil
	case c == '"':
		escaped, err = l.quoted(p)
	default:
		escaped, err = l.bare(p)
	}
	if err != nil {
		return token{}, err
	}
	t := token{kind: tokString, quoted: c == '"', pos: p, off: off, end: l.off}
	t.text = l.src[off:l.off]
	if t.quoted {
		t.text = t.text[1 : len(t.text)-1]
	}
	switch {
	case !escaped:
	case l.esc == nil:
		t.text = ""
	case l.esc.record:
		t.text = l.esc.add(off, t.text)
	default:
		t.text = l.esc.find(off)
	}
	return t, nil
}

// quoted moves past a string from its opening quote to its closing one,
// and reports whether it has escapes.
func (l *lexer) quoted(p Pos) (bool, error) {
	l.advance()
	start := l.off
	escaped := false
	for {
		if l.off >= len(l.src) {
			return false, l.errorf(p, "string never closed: '\"' without a closing '\"'")
		}
		if l.off-start > MaxTokenLen {
			return false, l.errorf(p, "string longer than %d bytes", MaxTokenLen)
		}
		switch l.src[l.off] {
		case 0:
			return false, l.errorf(l.pos, "NUL byte: not a text file")
		case '"':
			l.advance()
			return escaped, nil
		}
		e, err := l.consume()
		if err != nil {
			return false, err
		}
		escaped = escaped || e
	}
}

// multibyte moves past the character of two or more bytes at l.off, and
// refuses bytes that are not UTF-8: names and values go into the TOML,
// which is UTF-8, and replacing them would change them silently.
func (l *lexer) multibyte() error {
	r, size := utf8.DecodeRuneInString(l.src[l.off:])
	if r == utf8.RuneError && size <= 1 {
		return l.errorf(l.pos, "byte 0x%02x is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)", l.src[l.off])
	}
	for range size {
		l.advance()
	}
	return nil
}

// consume moves past the character at l.off, refusing a byte that is not
// UTF-8, and reports whether it was a backslash: an escape, which also
// takes the character after it (the token's text then differs from the
// input).
func (l *lexer) consume() (bool, error) {
	c := l.src[l.off]
	if c >= utf8.RuneSelf {
		return false, l.multibyte()
	}
	l.advance()
	if c != '\\' {
		return false, nil
	}
	switch {
	case l.off >= len(l.src): // a backslash at the end of the file is kept
	case l.src[l.off] >= utf8.RuneSelf: // kept before a character that is no escape
		return true, l.multibyte()
	default:
		l.advance()
	}
	return true, nil
}

// bare moves past an unquoted string: up to a separator, a terminal or a
// comment; it reports whether the string has escapes.
func (l *lexer) bare(p Pos) (bool, error) {
	start := l.off
	escaped := false
	for l.off < len(l.src) {
		if l.off-start > MaxTokenLen {
			return false, l.errorf(p, "name or value longer than %d bytes", MaxTokenLen)
		}
		c := l.src[l.off]
		if c == 0 {
			return false, l.errorf(l.pos, "NUL byte: not a text file")
		}
		if isSeparator(c) || isTerminal(c) || (c == '/' && (l.startsWith("//") || l.startsWith("/*"))) {
			break
		}
		e, err := l.consume()
		if err != nil {
			return false, err
		}
		escaped = escaped || e
	}
	if l.off-start > MaxTokenLen {
		return false, l.errorf(p, "name or value longer than %d bytes", MaxTokenLen)
	}
	return escaped, nil
}
