package marte2

import (
	"fmt"
	"strconv"
	"strings"
)

// Node is one definition of a MARTe2 configuration: a block (Children set,
// Value nil) or a leaf (Value set). Name is as written, with its '+' or '$'
// prefix.
type Node struct {
	Name     string
	Pos      Pos // of the name
	Children []*Node
	Value    *Value
}

// Value is the right-hand side of a leaf: a scalar, a vector { a b c } or
// a matrix { { a b } { c d } }, possibly with a (type) cast, or a
// (type | "expression") math expression.
//
// A vector or a matrix keeps its text, not its elements: All reads them
// again from it, so a vector of millions of elements costs no more memory
// than its text.
type Value struct {
	Pos        Pos    // of the first token after '='
	Cast       string // the cast type, or a math expression's output type; "" when none
	Expr       bool   // a math expression: First is the expression
	Dims       int    // 0 scalar, 1 vector, 2 matrix
	Rows, Cols int    // matrix rows and columns; a vector is 1 × Cols; a scalar 1 × 1

	first  Scalar // the first element
	n      int    // the number of elements
	src    string // a vector or matrix: its text, from its '{' to its '}'
	srcPos Pos    // the position of that '{'
}

// Scalar is one element of a Value.
type Scalar struct {
	Text   string // without quotes, escapes resolved
	Quoted bool
	Pos    Pos
}

// IsBlock reports whether n is a block.
func (n *Node) IsBlock() bool { return n.Value == nil }

// Parse reads a configuration in MARTe2's standard configuration language
// (what MARTe2's StandardParser reads) and returns its root block, whose
// children are the file's top-level definitions. name is the file name
// used in errors. The first syntax error stops the parse and is returned
// as an *Error. Input beyond MaxFileSize, MaxDepth or MaxTokenLen is an
// error.
//
// The grammar: a file and a block hold one or more definitions `Name =
// value`; a value is a scalar (a bare or quoted string, a number), a
// vector { s1 s2 ... }, a matrix { { ... } { ... } } of equal rows, a
// block { definitions }, a cast (type) value, or a math expression (type |
// "expression"). A block's name is unique in its block; a leaf may be
// defined again, and the last definition is the one MARTe2 reads (Leaf).
func Parse(name string, data []byte) (*Node, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: name, Pos: Pos{1, 1}, Msg: "file larger than " + strconv.Itoa(MaxFileSize) + " bytes"}
	}
	p := &parser{lx: lexer{file: name, src: string(data), pos: Pos{1, 1}}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	root := &Node{Pos: Pos{1, 1}}
	if p.tok.kind == tokEOF {
		return nil, p.errorf(p.tok.pos, "empty configuration: no definition")
	}
	kids, err := p.definitions(tokEOF, 0)
	if err != nil {
		return nil, err
	}
	root.Children = kids
	return root, nil
}

type parser struct {
	lx       lexer
	tok      token // current token
	ahead    token // the token after it, when hasAhead
	hasAhead bool
}

func (p *parser) errorf(pos Pos, format string, args ...any) error {
	return p.lx.errorf(pos, format, args...)
}

func (p *parser) advance() error {
	if p.hasAhead {
		p.tok, p.hasAhead = p.ahead, false
		return nil
	}
	t, err := p.lx.next()
	p.tok = t
	return err
}

// peek returns the token after the current one.
func (p *parser) peek() (token, error) {
	if !p.hasAhead {
		t, err := p.lx.next()
		if err != nil {
			return token{}, err
		}
		p.ahead, p.hasAhead = t, true
	}
	return p.ahead, nil
}

func (p *parser) isTerm(s string) bool { return p.tok.kind == tokTerm && p.tok.text == s }

// expect consumes the terminal s; what (a format and its arguments) says
// what it is for, in the error.
func (p *parser) expect(s, what string, args ...any) error {
	if !p.isTerm(s) {
		return p.errorf(p.tok.pos, "expected '%s' %s, got %v", s, fmt.Sprintf(what, args...), p.tok)
	}
	return p.advance()
}

// definitions reads definitions until the token end ('}' or EOF), which
// it does not consume.
func (p *parser) definitions(end tokKind, depth int) ([]*Node, error) {
	var nodes []*Node
	var seen map[string]*Node // the first node of each name, from the 9th node on
	for !(p.tok.kind == end && (end == tokEOF || p.isTerm("}"))) {
		n, err := p.definition(depth)
		if err != nil {
			return nil, err
		}
		// As in MARTe2: a leaf may be redefined (the last definition is
		// the one read), a block may not reuse a name.
		if first := firstNamed(nodes, seen, n.Name); first != nil && n.IsBlock() {
			return nil, p.errorf(n.Pos, "%q defined twice in the same block (first at line %d, column %d); MARTe2 refuses a block that reuses a name", n.Name, first.Pos.Line, first.Pos.Col)
		}
		nodes = append(nodes, n)
		switch {
		case len(nodes) == 9: // most blocks are small: no map for them
			seen = make(map[string]*Node, 16)
			for _, x := range nodes {
				if seen[x.Name] == nil {
					seen[x.Name] = x
				}
			}
		case seen != nil && seen[n.Name] == nil:
			seen[n.Name] = n
		}
	}
	return nodes, nil
}

// firstNamed returns the first of nodes called name: from seen when there
// is a map, else by looking.
func firstNamed(nodes []*Node, seen map[string]*Node, name string) *Node {
	if seen != nil {
		return seen[name]
	}
	for _, x := range nodes {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// definition reads Name = value.
func (p *parser) definition(depth int) (*Node, error) {
	t := p.tok
	switch {
	case t.kind == tokEOF:
		return nil, p.errorf(t.pos, "unexpected end of file: a block is not closed")
	case t.kind == tokTerm && t.text == "}":
		return nil, p.errorf(t.pos, "unexpected '}': no block to close")
	case t.kind != tokString:
		return nil, p.errorf(t.pos, "expected a name, got %v", t)
	case !t.quoted && isNumber(t.text):
		return nil, p.errorf(t.pos, "expected a name, got the number %s", t.text)
	case t.text == "":
		return nil, p.errorf(t.pos, "expected a name, got an empty string")
	case !t.quoted && strings.HasPrefix(t.text, "#"):
		return nil, p.errorf(t.pos, "%s: a C preprocessor directive; import the preprocessed file (gcc -x c -P -E app.cfg), as MARTe2's build does", t.text)
	}
	n := &Node{Name: t.text, Pos: t.pos}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expect("=", "after %q", n.Name); err != nil {
		return nil, err
	}
	var err error
	switch {
	case p.isTerm("("):
		n.Value, err = p.cast()
	case p.isTerm("{"):
		var next token
		if next, err = p.peek(); err != nil {
			return nil, err
		}
		if isBlockStart(next, p) {
			n.Children, err = p.block(depth + 1)
		} else {
			n.Value, err = p.variable()
		}
	default:
		n.Value, err = p.variable()
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// isBlockStart reports whether '{' followed by next opens a block: its
// first token is a name followed by '='.
func isBlockStart(next token, p *parser) bool {
	if next.kind != tokString || (!next.quoted && isNumber(next.text)) {
		return false
	}
	// Two tokens of look-ahead: the lexer is copied so nothing is consumed.
	lx := p.lx
	t, err := lx.next()
	return err == nil && t.kind == tokTerm && t.text == "="
}

// block reads { definitions }.
func (p *parser) block(depth int) ([]*Node, error) {
	open := p.tok.pos
	if depth > MaxDepth {
		return nil, p.errorf(open, "blocks nested deeper than %d", MaxDepth)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	kids, err := p.definitions(tokTerm, depth)
	if err != nil {
		return nil, err
	}
	return kids, p.advance() // the '}'
}

// cast reads (type) value or (type | expression).
func (p *parser) cast() (*Value, error) {
	open := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokString {
		return nil, p.errorf(p.tok.pos, "expected a type name after '(', got %v", p.tok)
	}
	typ := p.tok.text
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.isTerm("|") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tokString {
			return nil, p.errorf(p.tok.pos, "expected an expression after '|', got %v", p.tok)
		}
		expr := p.tok
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expect(")", "to close the expression opened at line %d", open.Line); err != nil {
			return nil, err
		}
		return &Value{Pos: open, Cast: typ, Expr: true, Rows: 1, Cols: 1, n: 1,
			first: Scalar{Text: expr.text, Quoted: expr.quoted, Pos: expr.pos}}, nil
	}
	if err := p.expect(")", "to close the cast"); err != nil {
		return nil, err
	}
	v, err := p.variable()
	if err != nil {
		return nil, err
	}
	v.Pos, v.Cast = open, typ
	return v, nil
}

// variable reads a scalar, a vector or a matrix.
func (p *parser) variable() (*Value, error) {
	v := &Value{Pos: p.tok.pos, Rows: 1}
	if !p.isTerm("{") {
		s, err := p.scalar()
		if err != nil {
			return nil, err
		}
		v.Cols, v.first, v.n = 1, s, 1
		return v, nil
	}
	open := p.tok
	v.srcPos = open.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	if !p.isTerm("{") { // a vector
		v.Dims = 1
		end, err := p.row(v)
		if err != nil {
			return nil, err
		}
		v.Cols, v.src = v.n, p.lx.src[open.off:end]
		return v, nil
	}
	v.Dims, v.Rows = 2, 0
	for p.isTerm("{") {
		rowPos := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		n := v.n
		if _, err := p.row(v); err != nil {
			return nil, err
		}
		if cols := v.n - n; v.Rows == 0 {
			v.Cols = cols
		} else if cols != v.Cols {
			return nil, p.errorf(rowPos, "matrix row %d has %d elements, row 1 has %d", v.Rows+1, cols, v.Cols)
		}
		v.Rows++
	}
	if p.isTerm("}") {
		v.src = p.lx.src[open.off : p.tok.off+1]
	}
	return v, p.expect("}", "to close the matrix")
}

// row reads scalars up to and including '}', at least one, counting them
// in v.n (the first in v.first); it returns the offset just past the '}'.
func (p *parser) row(v *Value) (int, error) {
	start := v.n
	for !p.isTerm("}") {
		s, err := p.scalar()
		if err != nil {
			return 0, err
		}
		if v.n == 0 {
			v.first = s
		}
		v.n++
	}
	if v.n == start {
		return 0, p.errorf(p.tok.pos, "empty vector or block: MARTe2 needs at least one element")
	}
	end := p.tok.off + 1
	return end, p.advance()
}

func (p *parser) scalar() (Scalar, error) {
	t := p.tok
	if t.kind != tokString {
		if t.kind == tokEOF {
			return Scalar{}, p.errorf(t.pos, "unexpected end of file: expected a value")
		}
		return Scalar{}, p.errorf(t.pos, "expected a value, got %v", t)
	}
	return Scalar{Text: t.text, Quoted: t.quoted, Pos: t.pos}, p.advance()
}

// isNumber reports whether a bare token is a number for MARTe2's lexer: it
// starts with a digit, after an optional sign, and reads as a number.
func isNumber(s string) bool {
	d := strings.TrimLeft(s, "+-")
	if len(s)-len(d) > 1 || d == "" || d[0] < '0' || d[0] > '9' {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	_, err := strconv.ParseInt(s, 0, 64)
	return err == nil
}
