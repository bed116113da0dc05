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
	code := run(context.Background(), []string{"-h"}, &stdout, &stderr)
	testenv.CheckHelp(t, "udps", code, stderr.String(), "server", "local", "format", "per-sample", "n", "timeout", "interval")
}
