package marte2

import (
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

// Text returns the single scalar of a leaf, and whether it is one.
func (v *Value) Text() (string, bool) {
	if v == nil || v.Dims != 0 || v.Expr || len(v.Items) != 1 {
		return "", false
	}
	return v.Items[0].Text, true
}

// String returns the value as written, for messages.
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
	switch v.Dims {
	case 0:
		item(v.Items[0])
	case 1:
		b.WriteString("{ ")
		for _, s := range v.Items {
			item(s)
			b.WriteByte(' ')
		}
		b.WriteString("}")
	default:
		b.WriteString("{ ")
		for r := 0; r < v.Rows; r++ {
			b.WriteString("{ ")
			for _, s := range v.Items[r*v.Cols : (r+1)*v.Cols] {
				item(s)
				b.WriteByte(' ')
			}
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
