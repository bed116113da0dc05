package app

import (
	"math"
	"runtime/debug"
	"testing"
)

// The daemon sets a soft memory limit for the run unless told otherwise,
// and gives the previous one back at Stop.
func TestMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	for _, tc := range []struct {
		app, env string
		want     int64
	}{
		{"", "", minMemoryLimit},
		{"MemoryLimit = 0", "", before},
		{"MemoryLimit = 209715200", "", 200 << 20},
		{"", "300MiB", before}, // the runtime read GOMEMLIMIT at start-up
		{"GCPolicy = \"off\"", "", 1 << 30},
	} {
		t.Setenv("GOMEMLIMIT", tc.env)
		h := startHTTPApp(t, "127.0.0.1:0", tc.app)
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("%q GOMEMLIMIT=%q: limit %d during the run, want %d", tc.app, tc.env, got, tc.want)
		}
		h.Stop()
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("%q: limit %d after Stop, want %d", tc.app, got, before)
		}
	}
	if before != math.MaxInt64 {
		t.Logf("the test process runs with a memory limit of %d", before)
	}
}
