package marte2

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds adds every testdata/*.cfg and a few hand-written fragments.
func seeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.cfg"))
	if len(files) == 0 {
		f.Fatal("no testdata/*.cfg")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"A = 1", "A = { {1 2} {3 4} }", `A = (uint8) { 1 2 }`, `A = (float64 | "B + 1")`,
		"A = \"a\\\"b\\n\" // c\n/* d */ B = e\\ f", "+A = { B = { C = 1; } }",
	} {
		f.Add([]byte(s))
	}
}

// FuzzParse checks that Parse never panics, and that what it accepts is
// well formed: positions inside the file, vectors and matrices the size
// they claim, blocks non-empty.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := Parse("f.cfg", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T, want *Error", err)
			}
			return
		}
		checkTree(t, root, 0)
	})
}

func checkTree(t *testing.T, n Node, depth int) {
	if depth > MaxDepth+1 {
		t.Fatalf("depth %d beyond MaxDepth", depth)
	}
	for c := range n.Children() {
		if c.Pos().Line < 1 || c.Pos().Col < 1 || c.Name() == "" {
			t.Fatalf("node %q at %v", c.Name(), c.Pos())
		}
		if c.IsBlock() {
			kids := 0
			for range c.Children() {
				kids++
			}
			if kids == 0 {
				t.Fatalf("empty block %q", c.Name())
			}
			checkTree(t, c, depth+1)
			continue
		}
		v := c.Value()
		n := 0
		for s := range v.All() {
			if s.Pos.Line < v.Pos().Line {
				t.Fatalf("%q: element at %v before the value at %v", c.Name(), s.Pos, v.Pos())
			}
			n++
		}
		if n == 0 || n != v.Len() || v.Rows()*v.Cols() != n || v.Dims() > 2 {
			t.Fatalf("%q: %d items (Len %d) as %d×%d, dims %d", c.Name(), n, v.Len(), v.Rows(), v.Cols(), v.Dims())
		}
		if p := v.Pos(); p.Line < c.Pos().Line || (p.Line == c.Pos().Line && p.Col <= c.Pos().Col) {
			t.Fatalf("%q: value at %v, not after its name at %v", c.Name(), p, c.Pos())
		}
		_ = v.String()
	}
}

// FuzzImport checks that Import never panics and that its errors and
// notes are positioned.
func FuzzImport(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, partial := range []bool{false, true} {
			res, err := Import("f.cfg", data, Options{Partial: partial})
			for _, e := range errorList(err) {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("error without a position: %v", e)
				}
			}
			if res == nil {
				continue
			}
			for _, n := range res.Notes {
				if n.Pos.Line < 1 || n.Pos.Col < 1 {
					t.Fatalf("note without a position: %+v", n)
				}
			}
			if (err == nil) != (res.TOML != nil) {
				t.Fatalf("err %v with %d bytes of TOML", err, len(res.TOML))
			}
		}
	})
}
