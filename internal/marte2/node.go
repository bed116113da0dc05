package marte2

import (
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// IsZero reports whether n is no definition.
func (n Node) IsZero() bool { return n.t == nil }

func (n Node) node() *node { return &n.t.nodes[n.i] }

// Name returns the name as written, with its '+' or '$'; "" for the root.
func (n Node) Name() string {
	if n.i == 0 {
		return ""
	}
	return n.t.name(n.i)
}

// name returns the name of the node at index i.
func (t *tree) name(i int32) string {
	d := &t.nodes[i]
	if d.flags()&nodeEscaped != 0 {
		return t.esc.find(int(d.off()))
	}
	q := int32(d.quotes())
	return t.src[d.off()+q : d.off()+int32(d.nlen())-q]
}

// Pos returns the position of the name.
func (n Node) Pos() Pos {
	d := n.node()
	return Pos{int(d.line()), int(d.col())}
}

// IsBlock reports whether n is a block.
func (n Node) IsBlock() bool { return n.node().flags()&nodeBlock != 0 }

// Value returns the value of a leaf; the zero Value for a block.
func (n Node) Value() Value {
	if n.IsZero() || n.IsBlock() {
		return Value{}
	}
	return Value{n}
}

// Children yields the definitions of a block in order.
func (n Node) Children() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		if n.t == nil || !n.IsBlock() {
			return
		}
		nodes := n.t.nodes
		for i := n.i + 1; i < nodes[n.i].end(); {
			if !yield(Node{n.t, i}) {
				return
			}
			if nodes[i].flags()&nodeBlock != 0 {
				i = nodes[i].end()
			} else {
				i++
			}
		}
	}
}

// contains reports whether x is inside the block n, at any depth.
func (n Node) contains(x Node) bool {
	return n.t == x.t && n.IsBlock() && x.i > n.i && x.i < n.node().end()
}

// Block returns the child block called name, or the zero Node.
func (n Node) Block(name string) Node {
	for c := range n.Children() {
		if c.IsBlock() && c.Name() == name {
			return c
		}
	}
	return Node{}
}

// Leaf returns the last leaf called name (the definition MARTe2 reads), or
// the zero Node.
func (n Node) Leaf(name string) Node {
	var found Node
	for c := range n.Children() {
		if !c.IsBlock() && c.Name() == name {
			found = c
		}
	}
	return found
}

// Objects yields the child blocks that are MARTe2 objects: their names
// start with '+' or '$'.
func (n Node) Objects() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		for c := range n.Children() {
			if c.IsBlock() && isObjectName(c.Name()) && !yield(c) {
				return
			}
		}
	}
}

// countObjects returns the number of objects in the block n, at any
// depth.
func (n Node) countObjects() int {
	count := 0
	t := n.t
	for i := n.i + 1; i < t.nodes[n.i].end(); i++ {
		d := &t.nodes[i]
		if d.flags()&nodeBlock != 0 && d.flags()&nodeEscaped == 0 && (t.src[d.off()+int32(d.quotes())] == '+' || t.src[d.off()+int32(d.quotes())] == '$') {
			count++
		}
	}
	return count
}

// hasObjects reports whether n has a child object.
func (n Node) hasObjects() bool {
	for range n.Objects() {
		return true
	}
	return false
}

func isObjectName(s string) bool { return strings.HasPrefix(s, "+") || strings.HasPrefix(s, "$") }

// bareName returns an object name without its '+' or '$'.
func bareName(s string) string {
	if isObjectName(s) {
		return s[1:]
	}
	return s
}

// rec returns the record of a value that is not a plain scalar, or nil.
func (v Value) rec() *valueRec {
	if v.n.IsZero() {
		return nil
	}
	if e := v.n.node().end(); e > 0 {
		return &v.n.t.vals[e-1]
	}
	return nil
}

// Pos returns the position of the value: of its first token after '='.
func (v Value) Pos() Pos {
	_, p := v.n.t.value(v.n.i)
	return p
}

// value returns the offset and the position of the value of the leaf at
// index i: its name and '=' are read again.
func (t *tree) value(i int32) (int32, Pos) {
	d := &t.nodes[i]
	lx := lexer{file: t.file, src: t.src, off: int(d.off()), pos: Pos{int(d.line()), int(d.col())}, esc: t.esc}
	lx.next() // the name
	lx.next() // '='
	lx.skip()
	return int32(lx.off), lx.pos
}

// posAt returns the position of the byte at off, at or after the name of
// the node at index i: the text between them is read again.
func (t *tree) posAt(i, off int32) Pos {
	d := &t.nodes[i]
	p := Pos{int(d.line()), int(d.col())}
	for _, c := range []byte(t.src[d.off():off]) {
		if c == '\n' {
			p.Line++
			p.Col = 1
		} else if utf8.RuneStart(c) {
			p.Col++
		}
	}
	return p
}

// Cast returns the cast type, or a math expression's output type; ""
// when none.
func (v Value) Cast() string {
	if r := v.rec(); r != nil && r.cast >= 0 {
		return v.n.t.token(v.n.i, r.cast).text
	}
	return ""
}

// Expr reports whether the value is a math expression: First is the
// expression.
func (v Value) Expr() bool {
	r := v.rec()
	return r != nil && r.expr
}

// Dims returns 0 for a scalar, 1 for a vector, 2 for a matrix.
func (v Value) Dims() int {
	if r := v.rec(); r != nil {
		return int(r.dims)
	}
	return 0
}

// Rows returns the rows of a matrix; 1 otherwise.
func (v Value) Rows() int {
	if r := v.rec(); r != nil && r.dims == 2 {
		return int(r.n / r.cols)
	}
	return 1
}

// Cols returns the columns of a matrix, the elements of a vector; 1 for
// a scalar.
func (v Value) Cols() int {
	if r := v.rec(); r != nil {
		return int(r.cols)
	}
	return 1
}

// token reads again the token at off, after the name of the node at
// index i.
func (t *tree) token(i, off int32) token {
	lx := lexer{file: t.file, src: t.src, off: int(off), pos: t.posAt(i, off), esc: t.esc}
	tok, _ := lx.next() // it was read once without error
	return tok
}

// Len returns the number of elements: 1 for a scalar or an expression.
func (v Value) Len() int {
	if r := v.rec(); r != nil {
		return int(r.n)
	}
	return 1
}

// First returns the first element: the scalar, or the expression.
func (v Value) First() Scalar {
	for s := range v.All() {
		return s
	}
	return Scalar{}
}

// All yields the elements in order, a matrix row by row. They are read
// again from the text; All allocates nothing.
func (v Value) All() iter.Seq[Scalar] {
	return func(yield func(Scalar) bool) {
		if v.n.IsZero() {
			return
		}
		t, i := v.n.t, v.n.i
		r := v.rec()
		if r == nil || r.dims == 0 {
			var tok token
			if r != nil {
				tok = t.token(i, r.body)
			} else {
				off, p := t.value(i)
				lx := lexer{file: t.file, src: t.src, off: int(off), pos: p, esc: t.esc}
				tok, _ = lx.next()
			}
			yield(Scalar{Text: tok.text, Quoted: tok.quoted, Pos: tok.pos})
			return
		}
		lx := lexer{file: t.file, src: t.src, off: int(r.body), pos: t.posAt(i, r.body), esc: t.esc}
		for lx.off < int(r.end) {
			tok, err := lx.next()
			if err != nil || tok.kind == tokEOF {
				return
			}
			if tok.kind == tokString && !yield(Scalar{Text: tok.text, Quoted: tok.quoted, Pos: tok.pos}) {
				return
			}
		}
	}
}

// Text returns the single scalar of a leaf, and whether it is one.
func (v Value) Text() (string, bool) {
	if v.n.IsZero() || v.Dims() != 0 || v.Expr() {
		return "", false
	}
	return v.First().Text, true
}

// maxShownItems is how many elements String prints of a vector or a
// matrix; the rest are counted.
const maxShownItems = 16

// String returns the value as written, for messages: a vector or matrix
// of more than maxShownItems elements is cut, with its element count.
func (v Value) String() string {
	if v.n.IsZero() {
		return ""
	}
	var b strings.Builder
	if c := v.Cast(); c != "" {
		b.WriteString("(" + c)
		if v.Expr() {
			b.WriteString(" | ")
		} else {
			b.WriteString(") ")
		}
	}
	item := func(s Scalar) {
		if s.Quoted {
			b.WriteString(strconv.Quote(s.Text))
		} else {
			b.WriteString(s.Text)
		}
	}
	dims, cols := v.Dims(), v.Cols()
	if dims == 0 {
		item(v.First())
	} else {
		b.WriteString("{ ")
		i := 0
		for s := range v.All() {
			if i == maxShownItems {
				fmt.Fprintf(&b, "… (%d elements) ", v.Len())
				break
			}
			if dims == 2 && i%cols == 0 {
				b.WriteString("{ ")
			}
			item(s)
			b.WriteByte(' ')
			if i++; dims == 2 && i%cols == 0 {
				b.WriteString("} ")
			}
		}
		if dims == 2 && i%cols != 0 {
			b.WriteString("} ")
		}
		b.WriteString("}")
	}
	if v.Expr() {
		b.WriteString(")")
	}
	return b.String()
}

// parseUint reads an unsigned integer the way MARTe2's StringToInteger
// does: decimal, or 0x hexadecimal, 0o octal, 0b binary.
func parseUint(s string, bits int) (uint64, bool) {
	s = strings.TrimPrefix(s, "+")
	base := 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 10 {
			s = s[2:]
		}
	}
	u, err := strconv.ParseUint(s, base, bits)
	return u, err == nil
}

// parseInt reads a signed integer: an optional '-' before parseUint's forms.
func parseInt(s string, bits int) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	u, ok := parseUint(strings.TrimPrefix(s, "-"), 64)
	if !ok {
		return 0, false
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		if u > limit {
			return 0, false
		}
		return -int64(u-1) - 1, true
	}
	if u >= limit {
		return 0, false
	}
	return int64(u), true
}

// parseFloat reads a finite number.
func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		if i, ok := parseInt(s, 64); ok {
			return float64(i), true
		}
		return 0, false
	}
	return f, true
}
