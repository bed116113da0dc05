package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, w := range []string{"usage: rd100smon ", "\nflags:\n", "\nexamples:\n  rd100smon ", "  -listen", "  -timeout", "  -rate", "  -freeze", "  -interval", "  -json", "  -n", "  -duration"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("-h lacks %q:\n%s", w, stderr.String())
		}
	}
}
