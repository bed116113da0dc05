package config

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2/unstable"
)

// index maps canonical key paths ("DataSources[0].Signals[2].Type") to the
// byte offset where the key, or the header of the table, starts.
type index struct {
	data  []byte
	lines []int // byte offset of the start of each line
	pos   map[string]int
}

// buildIndex walks the document with go-toml's unstable AST parser. It is
// called only after the document decoded cleanly, so a parser error here
// only leaves the index incomplete (positions fall back to the enclosing
// table or to 1:1).
func buildIndex(data []byte) *index {
	ix := &index{data: data, pos: make(map[string]int)}
	ix.lines = append(ix.lines, 0)
	for i, c := range data {
		if c == '\n' {
			ix.lines = append(ix.lines, i+1)
		}
	}
	counts := make(map[string]int) // array-of-tables path → number of elements
	var p unstable.Parser
	p.Reset(data)
	cur := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, offs := keyParts(e)
			if len(parts) == 0 {
				continue
			}
			off := ix.headerStart(offs[0])
			path := ""
			for i, k := range parts {
				path = join(path, k)
				last := i == len(parts)-1
				if last && e.Kind == unstable.ArrayTable {
					ix.record(path, off)
					n := counts[path]
					counts[path] = n + 1
					path += "[" + strconv.Itoa(n) + "]"
					break
				}
				if n := counts[path]; n > 0 {
					path += "[" + strconv.Itoa(n-1) + "]"
				}
				if !last {
					ix.record(path, offs[i])
				}
			}
			ix.record(path, off)
			cur = path
		case unstable.KeyValue:
			ix.keyValue(cur, e, counts)
		}
	}
	return ix
}

// keyParts returns the key parts of a table header or key-value and the
// offset of each.
func keyParts(n *unstable.Node) (parts []string, offs []int) {
	it := n.Key()
	for it.Next() {
		k := it.Node()
		parts = append(parts, string(k.Data))
		offs = append(offs, int(k.Raw.Offset))
	}
	return parts, offs
}

// keyValue records the key of a key-value expression relative to table
// base, and everything inside its value.
func (ix *index) keyValue(base string, kv *unstable.Node, counts map[string]int) {
	parts, offs := keyParts(kv)
	path := base
	for i, k := range parts {
		path = join(path, k)
		ix.record(path, offs[i])
	}
	if len(offs) > 0 {
		ix.value(path, kv.Value(), offs[0], counts)
	}
}

func (ix *index) value(path string, v *unstable.Node, off int, counts map[string]int) {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				ix.keyValue(path, c, counts)
			}
		}
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			c := it.Node()
			coff := off
			if c.Raw.Length > 0 {
				coff = int(c.Raw.Offset)
			}
			p := path + "[" + strconv.Itoa(i) + "]"
			ix.record(p, coff)
			ix.value(p, c, coff, counts)
		}
	}
}

// headerStart moves back from the first key of a table header to its '['.
func (ix *index) headerStart(off int) int {
	if off > len(ix.data) {
		return off
	}
	o := off
	for o > 0 && (ix.data[o-1] == ' ' || ix.data[o-1] == '\t') {
		o--
	}
	n := 0
	for o > 0 && ix.data[o-1] == '[' && n < 2 {
		o--
		n++
	}
	if n == 0 {
		return off
	}
	return o
}

func (ix *index) record(path string, off int) {
	if _, ok := ix.pos[path]; !ok {
		ix.pos[path] = off
	}
}

// lookup returns the line and column (1-based, column in characters) of
// path, or of the nearest enclosing path that the file spells out.
func (ix *index) lookup(path string) (line, col int) {
	for {
		if off, ok := ix.pos[path]; ok {
			return ix.lineCol(off)
		}
		if path == "" {
			return 1, 1
		}
		path = parent(path)
	}
}

func (ix *index) lineCol(off int) (line, col int) {
	if off > len(ix.data) {
		off = len(ix.data)
	}
	l := sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] > off }) - 1
	if l < 0 {
		l = 0
	}
	return l + 1, utf8.RuneCount(ix.data[ix.lines[l]:off]) + 1
}

// parent strips the last element ("[i]" or ".key") from a canonical path.
func parent(path string) string {
	if n := len(path); n > 0 && path[n-1] == ']' {
		for i := n - 1; i >= 0; i-- {
			if path[i] == '[' {
				return path[:i]
			}
		}
		return ""
	}
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[:i]
		}
	}
	return ""
}

func join(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}
