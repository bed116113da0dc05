package app

import (
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

// TestForceText: a char8 signal is forced with its text, NUL-padded, and
// /status shows the text back, escaped.
func TestForceText(t *testing.T) {
	sig := &datasource.Signal{Name: "Label", Type: datasource.Char8, NumberOfDimensions: 1, NumberOfElements: 8}
	b, err := parseValue(sig, "run, 7")
	if err != nil || string(b) != "run, 7\x00\x00" {
		t.Fatalf("parseValue = %q, %v", b, err)
	}
	if got := formatValue(sig, b); got != "run, 7" {
		t.Errorf("formatValue = %q", got)
	}
	if got := formatValue(sig, []byte("a\tb\\\x00\x00\x00\x00\x00")); got != `a\x09b\\` {
		t.Errorf("formatValue escapes: %q", got)
	}
	for _, bad := range []struct{ text, want string }{
		{"12345678", "8 bytes does not fit a char8[8] signal with the NUL that ends it (at most 7 bytes)"},
		{"a\x00b", "NUL"},
	} {
		if _, err := parseValue(sig, bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseValue(%q) = %v, want %q", bad.text, err, bad.want)
		}
	}
}
