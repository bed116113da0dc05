package marte2

import (
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
	maxShownElems = 8  // a longer path shows its first element, "…", and its last maxShownElems-2
	maxShownName  = 64 // a longer name shows its first maxShownCut bytes and "…"
	maxShownCut   = 48
)

// String returns the path as shown: elements joined by '.', each longer
// than maxShownName bytes cut, and a path of more than maxShownElems
// elements shortened in the middle.
func (p *objPath) String() string { return p.show() }

// show returns the path of the element extra... inside p, as String does.
func (p *objPath) show(extra ...string) string {
	n := len(extra)
	if p != nil {
		n += p.n
	}
	// The last elements, from the end.
	var last [maxShownElems]string
	k := 0
	for i := len(extra) - 1; i >= 0 && k < len(last); i-- {
		last[k] = extra[i]
		k++
	}
	q := p
	for ; q != nil && k < len(last); q = q.up {
		last[k] = q.name
		k++
	}
	var b strings.Builder
	if n > maxShownElems {
		for q.up != nil {
			q = q.up
		}
		b.WriteString(shortName(q.name))
		b.WriteString(".…")
		k = maxShownElems - 2
	}
	for i := k - 1; i >= 0; i-- {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(shortName(last[i]))
	}
	return b.String()
}

// shortName returns a name as shown in messages: cut after maxShownCut
// bytes, with "…", when it is longer than maxShownName bytes.
func shortName(s string) string {
	if len(s) <= maxShownName {
		return s
	}
	i := maxShownCut
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
