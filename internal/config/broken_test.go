package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// The valid applications the broken cases edit, one per datasource class:
// testdata/udps.toml, flat.toml and rd.toml. Line numbers in the cases
// refer to them after the edits.
var (
	baseUDPS = readTestdata("udps.toml")
	baseFlat = readTestdata("flat.toml")
	baseRD   = readTestdata("rd.toml")
)

func readTestdata(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// edit applies old→new replacements (each old must occur) to base.
func edit(t *testing.T, base string, pairs ...string) string {
	t.Helper()
	s := base
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("edit: %q not in base", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func TestBaseConfigsValid(t *testing.T) {
	for name, base := range map[string]string{"udps": baseUDPS, "flat": baseFlat, "rd": baseRD} {
		if _, err := Parse(name+".toml", []byte(base)); err != nil {
			t.Errorf("%s:\n%v", name, err)
		}
	}
}

// TestBrokenConfigs parses every case of testdata/broken.toml: its base
// with its edits must fail with exactly its errors.
func TestBrokenConfigs(t *testing.T) {
	var cases struct {
		Case []struct {
			Name  string
			Base  string
			Edits [][2]string
			Want  string
		}
	}
	if err := toml.Unmarshal([]byte(readTestdata("broken.toml")), &cases); err != nil {
		t.Fatal(err)
	}
	bases := map[string]string{"udps": baseUDPS, "flat": baseFlat, "rd": baseRD}
	if len(cases.Case) < 80 {
		t.Fatalf("%d cases in testdata/broken.toml", len(cases.Case))
	}
	for _, c := range cases.Case {
		t.Run(c.Name, func(t *testing.T) {
			var edits []string
			for _, e := range c.Edits {
				edits = append(edits, e[0], e[1])
			}
			src := edit(t, bases[c.Base], edits...)
			f, err := Parse("t.toml", []byte(src))
			if err == nil {
				t.Fatalf("no error; parsed %+v", f)
			}
			if f != nil {
				t.Errorf("non-nil *File with an error")
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T is not an Errors", err)
			}
			if got := err.Error(); got != c.Want {
				t.Errorf("got\n%s\nwant\n%s\nsource:\n%s", got, c.Want, src)
			}
		})
	}
}
