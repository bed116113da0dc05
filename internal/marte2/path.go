package marte2

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// objPath is where an object is in the file: its parent's path and its
// name ("$App.+Functions.+GAM1" is +GAM1 in +Functions in $App). Objects
// share their parents' paths, so a path costs one element per object
// however deep it is; its text is built only for messages, and shortened
// there (String).
type objPath struct {
	up   *objPath
	name string // as written, with its '+' or '$'
	n    int    // elements up to this one
}

// child returns the path of name inside p; p may be nil (the top level).
func (p *objPath) child(name string) *objPath {
	c := &objPath{up: p, name: name, n: 1}
	if p != nil {
		c.n = p.n + 1
	}
	return c
}

// Bounds on the paths and names shown in messages, notes and comments, so
// that what the import writes about each object stays small however long
// the names above it are: file:line:col says exactly where it is.
const (
	maxShownPath = 96 // bytes of a path shown in full; a longer one shows its first element, "…" and its last ones
	maxShownName = 40 // bytes of a name shown in full; a longer one shows its first maxShownCut bytes and "…"
	maxShownCut  = 32
)

// Format writes the path as String returns it, so that a message that
// names it (%s, %v) is built without the path's own string.
func (p *objPath) Format(f fmt.State, verb rune) {
	if !plainVerb(f, verb) {
		fmt.Fprintf(f, fmt.FormatString(f, verb), p.String())
		return
	}
	p.write(stateSink{f})
}

// plainVerb reports whether verb is %s or %v without flags, width or
// precision: a Format method writes the text itself; for any other, it
// formats its String.
func plainVerb(f fmt.State, verb rune) bool {
	return fmt.FormatString(f, verb) == "%"+string(verb) && (verb == 's' || verb == 'v')
}

// stateSink writes into a message being formatted.
type stateSink struct{ f fmt.State }

func (s stateSink) WriteString(str string) (int, error) { return io.WriteString(s.f, str) }

func (s stateSink) WriteByte(c byte) error {
	_, err := io.WriteString(s.f, allBytes[c:int(c)+1])
	return err
}

// allBytes holds every byte, for stateSink.WriteByte.
var allBytes = func() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()

// String returns the path as shown: elements joined by '.', each longer
// than maxShownName bytes cut; a path longer than maxShownPath bytes
// shows its first element, "…", and as many of its last elements as fit.
func (p *objPath) String() string { return p.show() }

// show returns the path of the elements extra inside p, as String does.
func (p *objPath) show(extra ...string) string {
	var n counter
	p.write(&n, extra...)
	var b strings.Builder
	b.Grow(int(n))
	p.write(&b, extra...)
	return b.String()
}

// counter counts the bytes written to it.
type counter int

func (c *counter) WriteString(s string) (int, error) {
	*c += counter(len(s))
	return len(s), nil
}

func (c *counter) WriteByte(byte) error {
	*c++
	return nil
}

// write writes what show returns.
func (p *objPath) write(b textSink, extra ...string) {
	var buf [MaxDepth + 8]string
	elems := buf[:0]
	for q := p; q != nil && len(elems) < len(buf)-len(extra); q = q.up {
		elems = append(elems, q.name)
	}
	slices.Reverse(elems)
	elems = append(elems, extra...)
	if len(elems) == 0 {
		return
	}
	size := len(elems) - 1
	for _, e := range elems {
		size += shownLen(e)
	}
	from := 1
	if size > maxShownPath && len(elems) > 2 {
		// The first element, and the last ones that fit.
		from = len(elems) - 1
		room := maxShownPath - shownLen(elems[0]) - len(".….") - shownLen(elems[from])
		for from > 1 && shownLen(elems[from-1])+1 <= room {
			from--
			room -= shownLen(elems[from]) + 1
		}
	}
	writeName(b, elems[0])
	if from > 1 {
		b.WriteString(".…")
	}
	for _, e := range elems[from:] {
		b.WriteByte('.')
		writeName(b, e)
	}
}

// shortName returns a name as shown in messages: cut after maxShownCut
// bytes, with "…", when it is longer than maxShownName bytes.
func shortName(s string) string {
	if len(s) <= maxShownName {
		return s
	}
	return s[:cutAt(s)] + "…"
}

// writeName writes shortName(s).
func writeName(b textSink, s string) {
	if len(s) <= maxShownName {
		b.WriteString(s)
		return
	}
	b.WriteString(s[:cutAt(s)])
	b.WriteString("…")
}

// shownLen returns the length of shortName(s).
func shownLen(s string) int {
	if len(s) <= maxShownName {
		return len(s)
	}
	return cutAt(s) + len("…")
}

// cutAt returns where a long name is cut: at most maxShownCut bytes, on a
// character's start.
func cutAt(s string) int {
	i := maxShownCut
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
