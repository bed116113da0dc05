package marte2

import (
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
)

// Block returns the child block called name, or nil.
func (n *Node) Block(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name && c.IsBlock() {
			return c
		}
	}
	return nil
}

// Leaf returns the last leaf called name (the definition MARTe2 reads), or
// nil.
func (n *Node) Leaf(name string) *Node {
	var found *Node
	for _, c := range n.Children {
		if c.Name == name && !c.IsBlock() {
			found = c
		}
	}
	return found
}

// Objects returns the child blocks that are MARTe2 objects: their names
// start with '+' or '$'.
func (n *Node) Objects() []*Node {
	var out []*Node
	for _, c := range n.Children {
		if c.IsBlock() && isObjectName(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

func isObjectName(s string) bool { return strings.HasPrefix(s, "+") || strings.HasPrefix(s, "$") }

// bareName returns an object name without its '+' or '$'.
func bareName(s string) string {
	if isObjectName(s) {
		return s[1:]
	}
	return s
}

// Len returns the number of elements: 1 for a scalar or an expression.
func (v *Value) Len() int { return v.n }

// First returns the first element: the scalar, or the expression.
func (v *Value) First() Scalar { return v.first }

// All yields the elements in order, a matrix row by row. A vector or a
// matrix is read again from its text, so each call allocates only for
// elements with escapes.
func (v *Value) All() iter.Seq[Scalar] {
	return func(yield func(Scalar) bool) {
		if v.src == "" {
			yield(v.first)
			return
		}
		lx := lexer{src: v.src, pos: v.srcPos}
		for {
			t, err := lx.next()
			if err != nil || t.kind == tokEOF {
				return
			}
			if t.kind == tokString && !yield(Scalar{Text: t.text, Quoted: t.quoted, Pos: t.pos}) {
				return
			}
		}
	}
}

// Text returns the single scalar of a leaf, and whether it is one.
func (v *Value) Text() (string, bool) {
	if v == nil || v.Dims != 0 || v.Expr || v.n != 1 {
		return "", false
	}
	return v.first.Text, true
}

// maxShownItems is how many elements String prints of a vector or a
// matrix; the rest are counted.
const maxShownItems = 16

// String returns the value as written, for messages: a vector or matrix
// of more than maxShownItems elements is cut, with its element count.
func (v *Value) String() string {
	if v == nil {
		return ""
	}
	var b strings.Builder
	if v.Cast != "" {
		b.WriteString("(" + v.Cast)
		if v.Expr {
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
	if v.Dims == 0 {
		item(v.first)
	} else {
		b.WriteString("{ ")
		i := 0
		for s := range v.All() {
			if i == maxShownItems {
				fmt.Fprintf(&b, "… (%d elements) ", v.n)
				break
			}
			if v.Dims == 2 && i%v.Cols == 0 {
				b.WriteString("{ ")
			}
			item(s)
			b.WriteByte(' ')
			if i++; v.Dims == 2 && i%v.Cols == 0 {
				b.WriteString("} ")
			}
		}
		if v.Dims == 2 && i%v.Cols != 0 {
			b.WriteString("} ")
		}
		b.WriteString("}")
	}
	if v.Expr {
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
