package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-h"}, &stdout, &stderr, nil)
	testenv.CheckHelp(t, "flatrecv", code, stderr.String(), "listen", "group", "iface", "signals", "endian", "format", "n", "interval")
}
