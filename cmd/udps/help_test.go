package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, w := range []string{"usage: udps ", "\nflags:\n", "\nexamples:\n  udps ", "  -server", "  -local", "  -format", "  -per-sample", "  -n", "  -timeout", "  -interval"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("-h lacks %q:\n%s", w, stderr.String())
		}
	}
}
