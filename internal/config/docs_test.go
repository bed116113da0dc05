package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsCoverEveryKey checks that docs/config.md names every key the
// schema knows, and that its TOML examples parse.
func TestDocsCoverEveryKey(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	paths, _ := filepath.Glob(filepath.Join("..", "..", "configs", "*.toml"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parse(p, data, known); err != nil {
			t.Fatal(err)
		}
	}
	for _, base := range []string{baseUDPS, baseFlat, baseRD} {
		if _, err := parse("base.toml", []byte(base), known); err != nil {
			t.Fatal(err)
		}
	}
	if len(known) < 85 {
		t.Fatalf("only %d keys seen; the examples no longer reach every table", len(known))
	}
	for k := range known {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/config.md does not document key %q", k)
		}
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
