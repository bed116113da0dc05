package marte2

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextDefaultLength: MARTe2's ConstantGAM keeps N-1 bytes of an
// N-byte char8[N] Default and a NUL (what its UDPSender then sends), and
// refuses a longer one; the import does the same.
func TestTextDefaultLength(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "text.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	with := func(def string) []byte {
		return []byte(strings.Replace(string(data), `Default = "running"`, `Default = "`+def+`"`, 1))
	}
	res, err := Import("text.cfg", with("0123456789abcdef"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.TOML), `Text = "0123456789abcde"  # Default of State`) {
		t.Errorf("16 bytes into char8[16]:\n%s", res.TOML)
	}
	if w := res.Warnings(); !strings.Contains(notesText(w), "MARTe2 sends its first 15 and a NUL") {
		t.Errorf("no note on the cut: %v", notesText(w))
	}
	_, err = Import("text.cfg", with("0123456789abcdefg"), Options{})
	if err == nil || !strings.Contains(err.Error(), "Default of 17 bytes is longer than char8[16] (MARTe2 refuses it)") {
		t.Errorf("17 bytes into char8[16]: %v", err)
	}
}

func notesText(ns []Note) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.Format("text.cfg") + "\n")
	}
	return b.String()
}

// TestTextDefaultQuotes: MARTe2's configuration builder reads a char8
// Default again between quotes and refuses the application when that does
// not parse; the import refuses exactly those, at the Default, and
// imports the others with the text MARTe2's ConstantGAM writes (the
// Default as read once).
func TestTextDefaultQuotes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "text.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		def  string // as written in the file, between the quotes
		text string // the TOML string written, "" when refused
	}{
		{`a\"b`, ""},                     // `Default="a"b"`: b is a name without '='
		{`\"`, ""},                       // `Default="""`: a string that never closes, after ""
		{`ab\"`, ""},                     // `Default="ab""`: the same
		{`a\\b`, `"a\\b"`},               // a\b: a backslash before b is kept
		{`a\\nb`, `"a\\nb"`},             // a\nb, read again as a newline in the builder's copy only
		{`a\tb`, `"a\tb"`},               // a tab
		{`a\nb`, `"a\nb"`},               // a newline
		{`a\\`, `"a\\"`},                 // a\: the builder's copy ends at the end of its input
		{`a\" X = \"b`, `"a\" X = \"b"`}, // `Default="a" X = "b"`: two definitions, MARTe2 reads on
	} {
		in := strings.Replace(string(data), `Default = "running"`, `Default = "`+tc.def+`"`, 1)
		res, err := Import("text.cfg", []byte(in), Options{})
		if tc.text == "" {
			want := `text.cfg:24:90: $TextApp.+Functions.+StateGAM.OutputSignals.State: Default "` + strings.ReplaceAll(tc.def, `\"`, `\"`) + `": MARTe2 refuses the whole application ("Unsupported defined default value")`
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Default = %q: %v\nwant %s", tc.def, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Default = %q: %v", tc.def, err)
			continue
		}
		if want := "Text = " + tc.text + "  # Default of State"; !strings.Contains(string(res.TOML), want) {
			t.Errorf("Default = %q: no %s in\n%s", tc.def, want, res.TOML)
		}
	}
}

func TestRereadDefault(t *testing.T) {
	for _, tc := range []struct {
		s  string
		at int
		ok bool
	}{
		{"abc", 0, true}, {`a"b`, 1, false}, {`"`, 0, false}, {`a\`, 0, true}, {`a\"b`, 0, true},
		{`a" B = "c`, 0, true}, {`a" B = { C = 1 }`, 1, false}, {`a" B = { C = 1 } D = "e`, 0, true},
	} {
		at, ok := rereadDefault(tc.s)
		if at != tc.at || ok != tc.ok {
			t.Errorf("rereadDefault(%q) = %d, %v; want %d, %v", tc.s, at, ok, tc.at, tc.ok)
		}
	}
}
