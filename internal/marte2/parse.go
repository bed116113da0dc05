package marte2

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// tree is a parsed configuration: its definitions in file order, a block
// before its contents, each a node of fixed size that points into the
// text. Names and values are read from the text when asked for, so the
// tree costs a few bytes per definition and no string is copied (but
// those whose escapes change them, into esc).
type tree struct {
	file  string
	src   string
	nodes []node     // nodes[0] is the root: the file's top-level definitions
	vals  []valueRec // the values that are not one plain scalar
	esc   *escapes
}

// node is one definition, in 16 bytes: a packs the offset of the name's
// token in src, the line of the name, the length of its token (quotes
// included) and the flags; b packs the column of the name and end. end is,
// for a block, the index of the node after its last descendant; for a
// leaf, its index in vals plus one, or 0 for a plain scalar.
type node struct{ a, b uint64 }

// The widths of node's fields: offsets and lines fit in 23 bits within
// MaxFileSize, a token within MaxTokenLen (and its quotes and a last
// character) in 15.
const (
	nodeOffBits  = 23
	nodeLineBits = 23
	nodeLenBits  = 15
	nodeMax      = 1<<nodeOffBits - 1
	_            = uint(nodeMax - MaxFileSize - 1) // MaxFileSize fits
	_            = uint(1<<nodeLenBits - 1 - (MaxTokenLen + 6))
)

func makeNode(off, line, col, nlen int, flags uint8) node {
	return node{
		a: uint64(off) | uint64(line)<<nodeOffBits | uint64(nlen)<<(nodeOffBits+nodeLineBits) | uint64(flags)<<(nodeOffBits+nodeLineBits+nodeLenBits),
		b: uint64(col),
	}
}

func (d *node) off() int32     { return int32(d.a & nodeMax) }
func (d *node) line() int32    { return int32(d.a >> nodeOffBits & (1<<nodeLineBits - 1)) }
func (d *node) nlen() int32    { return int32(d.a >> (nodeOffBits + nodeLineBits) & (1<<nodeLenBits - 1)) }
func (d *node) flags() uint8   { return uint8(d.a >> (nodeOffBits + nodeLineBits + nodeLenBits)) }
func (d *node) col() int32     { return int32(uint32(d.b)) }
func (d *node) end() int32     { return int32(d.b >> 32) }
func (d *node) setEnd(e int32) { d.b = uint64(uint32(d.b)) | uint64(uint32(e))<<32 }
func (d *node) setFlag(f uint8) {
	d.a |= uint64(f) << (nodeOffBits + nodeLineBits + nodeLenBits)
}

const (
	nodeBlock   uint8 = 1 << iota
	nodeQuoted        // the name is quoted
	nodeEscaped       // the name has escapes: its text is in esc
)

// valueRec is a value that is not one plain scalar: a vector, a matrix, a
// cast or a math expression.
type valueRec struct {
	cast int32 // the offset of the cast's type token, or -1
	body int32 // the offset of the '{' of a vector or matrix, of a cast scalar, or of the expression
	end  int32 // a vector or matrix: the offset just past its '}'
	n    int32 // elements
	cols int32
	dims uint8 // 0 scalar, 1 vector, 2 matrix
	expr bool
}

// Node is one definition of a MARTe2 configuration, in the tree Parse
// returns: a block (its children) or a leaf (its Value). Name is as
// written, with its '+' or '$' prefix. The zero Node is no definition:
// what Block and Leaf return when there is none. A Node is a small value
// that refers to its tree; reading it never changes the tree, so any
// number of goroutines may read one tree.
type Node struct {
	t *tree
	i int32
}

// Value is the right-hand side of a leaf: a scalar, a vector { a b c } or
// a matrix { { a b } { c d } }, possibly with a (type) cast, or a
// (type | "expression") math expression.
//
// A Value is read from the file's text when asked for: a vector of
// millions of elements costs no more memory than its text, and All
// allocates nothing.
type Value struct {
	n Node
}

// Scalar is one element of a Value.
type Scalar struct {
	Text   string // without quotes, escapes resolved
	Quoted bool
	Pos    Pos
}

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
//
// The tree refers to data, not a copy (data must not change while the
// tree is in use), and costs 16 bytes per definition.
func Parse(name string, data []byte) (Node, error) {
	if len(data) > MaxFileSize {
		return Node{}, &Error{File: name, Pos: Pos{1, 1}, Msg: "file larger than " + strconv.Itoa(MaxFileSize) + " bytes"}
	}
	t := &tree{file: name, src: bytesString(data), esc: &escapes{record: true}}
	// One pass to count the definitions (each has one '='), so that the
	// nodes are allocated once, at their size.
	t.nodes = make([]node, 1, 1+countDefinitions(t.src))
	t.nodes[0] = makeNode(0, 1, 1, 0, nodeBlock)
	p := &parser{t: t, lx: lexer{file: name, src: t.src, pos: Pos{1, 1}, esc: t.esc}}
	if err := p.advance(); err != nil {
		return Node{}, err
	}
	if p.tok.kind == tokEOF {
		return Node{}, p.errorf(p.tok.pos, "empty configuration: no definition")
	}
	if err := p.definitions(0, tokEOF, 0); err != nil {
		if dup := p.firstDuplicate(); dup != nil {
			return Node{}, dup
		}
		return Node{}, err
	}
	t.esc.done()
	return Node{t, 0}, nil
}

// countDefinitions counts the '=' tokens of src, up to its first lexical
// error.
func countDefinitions(src string) int {
	lx := lexer{src: src, pos: Pos{1, 1}}
	n := 0
	for {
		t, err := lx.next()
		if err != nil || t.kind == tokEOF {
			return n
		}
		if t.kind == tokTerm && t.text == "=" {
			n++
		}
	}
}

type parser struct {
	t        *tree
	lx       lexer
	tok      token // current token
	ahead    token // the token after it, when hasAhead
	hasAhead bool
	open     []level // the blocks being read, the root first
	kids     []int32 // scratch: the children of the block being checked
}

// level is a block being read: its index, and the index past its last
// child read whole.
type level struct{ b, done int32 }

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

// definitions reads the definitions of the block at index b until the
// token end ('}' or EOF), which it does not consume.
//
// As in MARTe2, a block may not reuse the name of a definition before it
// in the same block (a leaf may be redefined: the last definition is the
// one read). The names of a block are checked when it closes, sorted, so
// that a block of many definitions costs n log n steps and no map. An
// error stops the parse, and the error returned is then the one a check
// after each definition would have met first (firstDuplicate).
func (p *parser) definitions(b int32, end tokKind, depth int) error {
	p.open = append(p.open, level{b, b + 1})
	for !(p.tok.kind == end && (end == tokEOF || p.isTerm("}"))) {
		if err := p.definition(depth); err != nil {
			return err
		}
		p.open[len(p.open)-1].done = int32(len(p.t.nodes))
	}
	p.t.nodes[b].setEnd(int32(len(p.t.nodes)))
	if err := p.duplicate(b, p.t.nodes[b].end()); err != nil {
		return err
	}
	p.open = p.open[:len(p.open)-1]
	return nil
}

// firstDuplicate returns the error for the first block, in the order the
// definitions were read whole, that reuses a name in the blocks still
// open; nil when there is none.
func (p *parser) firstDuplicate() error {
	for _, l := range p.open {
		if err := p.duplicate(l.b, l.done); err != nil {
			return err
		}
	}
	return nil
}

// duplicate returns the error for the first child block of the block at
// index b, before index done, that reuses the name of a definition before
// it; nil when there is none.
func (p *parser) duplicate(b, done int32) error {
	t := p.t
	kids := p.kids[:0]
	for i := b + 1; i < done; {
		kids = append(kids, i)
		if t.nodes[i].flags()&nodeBlock != 0 {
			i = t.nodes[i].end()
		} else {
			i++
		}
	}
	p.kids = kids
	if len(kids) < 2 {
		return nil
	}
	slices.SortFunc(kids, func(x, y int32) int {
		if c := strings.Compare(t.name(x), t.name(y)); c != 0 {
			return c
		}
		return int(x - y)
	})
	bad, first := int32(-1), int32(-1)
	for i, start := 1, 0; i < len(kids); i++ {
		k := kids[i]
		if t.name(k) != t.name(kids[start]) {
			start = i // a new name: its first definition
			continue
		}
		if t.nodes[k].flags()&nodeBlock != 0 && (bad < 0 || k < bad) {
			bad, first = k, kids[start]
		}
	}
	if bad < 0 {
		return nil
	}
	fp := Node{t, first}.Pos()
	return p.errorf(Node{t, bad}.Pos(), "%q defined twice in the same block (first at line %d, column %d); MARTe2 refuses a block that reuses a name", t.name(bad), fp.Line, fp.Col)
}

// definition reads Name = value.
func (p *parser) definition(depth int) error {
	t := p.tok
	switch {
	case t.kind == tokEOF:
		return p.errorf(t.pos, "unexpected end of file: a block is not closed")
	case t.kind == tokTerm && t.text == "}":
		return p.errorf(t.pos, "unexpected '}': no block to close")
	case t.kind != tokString:
		return p.errorf(t.pos, "expected a name, got %v", t)
	case !t.quoted && isNumber(t.text):
		return p.errorf(t.pos, "expected a name, got the number %s", t.text)
	case t.text == "":
		return p.errorf(t.pos, "expected a name, got an empty string")
	case !t.quoted && strings.HasPrefix(t.text, "#"):
		return p.errorf(t.pos, "%s: a C preprocessor directive; import the preprocessed file (gcc -x c -P -E app.cfg), as MARTe2's build does", t.text)
	}
	var flags uint8
	q := 0
	if t.quoted {
		flags, q = nodeQuoted, 1
	}
	if t.text != p.t.src[t.off+q:t.end-q] {
		flags |= nodeEscaped
	}
	n := makeNode(t.off, t.pos.Line, t.pos.Col, t.end-t.off, flags)
	i := int32(len(p.t.nodes))
	p.t.nodes = append(p.t.nodes, n)
	if err := p.advance(); err != nil {
		return err
	}
	if !p.isTerm("=") { // no p.expect: its arguments would allocate
		return p.errorf(p.tok.pos, "expected '=' after %q, got %v", t.text, p.tok)
	}
	if err := p.advance(); err != nil {
		return err
	}
	switch {
	case p.isTerm("("):
		return p.cast(i)
	case p.isTerm("{"):
		next, err := p.peek()
		if err != nil {
			return err
		}
		if isBlockStart(next, p) {
			p.t.nodes[i].setFlag(nodeBlock)
			return p.block(i, depth+1)
		}
	}
	return p.variable(i, -1)
}

// quotes returns 1 for a quoted name, else 0: the bytes of the token
// before and after its text.
func (n *node) quotes() int {
	if n.flags()&nodeQuoted != 0 {
		return 1
	}
	return 0
}

// isBlockStart reports whether '{' followed by next opens a block: its
// first token is a name followed by '='.
func isBlockStart(next token, p *parser) bool {
	if next.kind != tokString || (!next.quoted && isNumber(next.text)) {
		return false
	}
	// Two tokens of look-ahead: the lexer is copied so nothing is
	// consumed, and it does not record escapes (the token is read again).
	lx := p.lx
	lx.esc = nil
	t, err := lx.next()
	return err == nil && t.kind == tokTerm && t.text == "="
}

// block reads { definitions } as the children of the node at index b.
func (p *parser) block(b int32, depth int) error {
	if depth > MaxDepth {
		return p.errorf(p.tok.pos, "blocks nested deeper than %d", MaxDepth)
	}
	if err := p.advance(); err != nil {
		return err
	}
	if err := p.definitions(b, tokTerm, depth); err != nil {
		return err
	}
	return p.advance() // the '}'
}

// cast reads (type) value or (type | expression), the value of the leaf
// at index i.
func (p *parser) cast(i int32) error {
	open := p.tok.pos
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind != tokString {
		return p.errorf(p.tok.pos, "expected a type name after '(', got %v", p.tok)
	}
	typ := int32(p.tok.off)
	if err := p.advance(); err != nil {
		return err
	}
	if p.isTerm("|") {
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tokString {
			return p.errorf(p.tok.pos, "expected an expression after '|', got %v", p.tok)
		}
		p.addValue(i, valueRec{cast: typ, body: int32(p.tok.off), n: 1, cols: 1, expr: true})
		if err := p.advance(); err != nil {
			return err
		}
		return p.expect(")", "to close the expression opened at line %d", open.Line)
	}
	if err := p.expect(")", "to close the cast"); err != nil {
		return err
	}
	return p.variable(i, typ)
}

func (p *parser) addValue(i int32, v valueRec) {
	p.t.vals = append(p.t.vals, v)
	p.t.nodes[i].setEnd(int32(len(p.t.vals)))
}

// variable reads a scalar, a vector or a matrix, the value of the leaf at
// index i, cast to the type at offset cast (-1: none).
func (p *parser) variable(i, cast int32) error {
	if !p.isTerm("{") {
		t := p.tok
		if err := p.scalar(); err != nil {
			return err
		}
		if cast >= 0 {
			p.addValue(i, valueRec{cast: cast, body: int32(t.off), n: 1, cols: 1})
		}
		return nil
	}
	v := valueRec{cast: cast, body: int32(p.tok.off)}
	if err := p.advance(); err != nil {
		return err
	}
	if !p.isTerm("{") { // a vector
		v.dims = 1
		end, err := p.row(&v)
		if err != nil {
			return err
		}
		v.cols, v.end = v.n, int32(end)
		p.addValue(i, v)
		return nil
	}
	v.dims = 2
	rows := 0
	for p.isTerm("{") {
		rowPos := p.tok.pos
		if err := p.advance(); err != nil {
			return err
		}
		n := v.n
		if _, err := p.row(&v); err != nil {
			return err
		}
		if cols := v.n - n; rows == 0 {
			v.cols = cols
		} else if cols != v.cols {
			return p.errorf(rowPos, "matrix row %d has %d elements, row 1 has %d", rows+1, cols, v.cols)
		}
		rows++
	}
	v.end = int32(p.tok.end)
	if err := p.expect("}", "to close the matrix"); err != nil {
		return err
	}
	p.addValue(i, v)
	return nil
}

// row reads scalars up to and including '}', at least one, counting them
// in v.n; it returns the offset just past the '}'.
func (p *parser) row(v *valueRec) (int, error) {
	start := v.n
	for !p.isTerm("}") {
		if err := p.scalar(); err != nil {
			return 0, err
		}
		v.n++
	}
	if v.n == start {
		return 0, p.errorf(p.tok.pos, "empty vector or block: MARTe2 needs at least one element")
	}
	end := p.tok.end
	return end, p.advance()
}

func (p *parser) scalar() error {
	t := p.tok
	if t.kind != tokString {
		if t.kind == tokEOF {
			return p.errorf(t.pos, "unexpected end of file: expected a value")
		}
		return p.errorf(t.pos, "expected a value, got %v", t)
	}
	return p.advance()
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
