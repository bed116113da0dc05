package config

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated key tables of docs/config.md from the declarations")

// docsPath is the reference the declarations generate tables of.
var docsPath = filepath.Join("..", "..", "docs", "config.md")

// The generated tables of docs/config.md sit between these lines; the
// name is a section's title.
const (
	beginKeys = "<!-- keys of %s: generated from internal/config by go test ./internal/config -update; edit the declarations, not this table -->"
	endKeys   = "<!-- end of generated keys -->"
)

var generated = regexp.MustCompile(`(?s)<!-- keys of (\S+): generated [^\n]*-->\n.*?<!-- end of generated keys -->`)

// TestDocsMatchDeclarations regenerates every key table of docs/config.md
// from the declarations and fails when the file differs (go test
// ./internal/config -update rewrites it). Every declared table appears
// exactly once.
func TestDocsMatchDeclarations(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	byTitle := map[string]section{}
	for _, s := range sections {
		byTitle[s.title()] = s
	}
	seen := map[string]int{}
	var unknown []string
	out := generated.ReplaceAllFunc(doc, func(m []byte) []byte {
		title := string(generated.FindSubmatch(m)[1])
		seen[title]++
		s, ok := byTitle[title]
		if !ok {
			unknown = append(unknown, title)
			return m
		}
		return []byte(keyTable(s))
	})
	for _, u := range unknown {
		t.Errorf("docs/config.md has a generated table of %q, which no declaration has", u)
	}
	for _, s := range sections {
		if n := seen[s.title()]; n != 1 {
			t.Errorf("docs/config.md has %d generated tables of %q, want 1: add\n%s\n%s\nwhere its keys are documented", n, s.title(), fmt.Sprintf(beginKeys, s.title()), endKeys)
		}
	}
	if bytes.Equal(out, doc) {
		return
	}
	if *update {
		if err := os.WriteFile(docsPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote docs/config.md")
		return
	}
	t.Errorf("docs/config.md differs from the declarations; run go test ./internal/config -update\n%s", firstDiff(string(doc), string(out)))
}

// keyTable renders the key table of s, between its markers.
func keyTable(s section) string {
	var b strings.Builder
	fmt.Fprintf(&b, beginKeys+"\n", s.title())
	b.WriteString("| key | type | default | rule |\n| --- | --- | --- | --- |\n")
	for _, r := range s.rows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.key, r.kind, r.def, r.rule)
	}
	b.WriteString(endKeys)
	return b.String()
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d\nfile:         %s\ndeclarations: %s", i+1, gl, wl)
		}
	}
	return ""
}

// TestDocsExamplesParse: every TOML example of docs/config.md is a valid
// configuration.
func TestDocsExamplesParse(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("no toml example in docs/config.md")
	}
	for _, b := range blocks {
		if _, err := Parse("config.md", []byte(b[1])); err != nil {
			t.Errorf("example in docs/config.md:\n%v", err)
		}
	}
}

// TestDeclarations checks what the compiler cannot: no table declares a
// key twice, every key has a type for the docs, and every key the example
// configurations use is declared (a key read by hand, outside the
// declarations, would be missing from the docs).
func TestDeclarations(t *testing.T) {
	declared := map[string]bool{}
	for _, s := range sections {
		names := map[string]bool{}
		for _, r := range s.rows() {
			if names[r.key] {
				t.Errorf("%s declares %s twice", s.title(), r.key)
			}
			names[r.key] = true
			declared[strings.Trim(r.key, "`")] = true
			if r.kind == "" || r.def == "" {
				t.Errorf("%s %s: type %q, default %q", s.title(), r.key, r.kind, r.def)
			}
		}
	}
	paths, _ := filepath.Glob(filepath.Join("..", "..", "configs", "*.toml"))
	for _, p := range paths {
		f := loadExample(t, filepath.Base(p))
		for path := range f.ix.pos {
			k := path[strings.LastIndexByte(path, '.')+1:]
			if strings.HasSuffix(k, "]") {
				continue
			}
			if !declared[k] {
				t.Errorf("%s: key %s is not declared", p, path)
			}
		}
	}
}
