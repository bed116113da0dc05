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
