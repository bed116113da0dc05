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
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr, nil); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, w := range []string{"usage: flatrecv ", "\nflags:\n", "\nexamples:\n  flatrecv ", "  -listen", "  -group", "  -iface", "  -signals", "  -endian", "  -format", "  -n", "  -interval"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("-h lacks %q:\n%s", w, stderr.String())
		}
	}
}
