package app

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// The daemon sets a soft memory limit, GOGC and a spare P per locked
// thread (the RT thread and the UDPStreamer's network thread of
// testdata/http.toml) for the run unless told otherwise, and gives the
// previous settings back at Stop.
func TestRuntimePolicy(t *testing.T) {
	limit0, gogc0, procs0 := debug.SetMemoryLimit(-1), gcPercent(), runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		app, memlimit, gogc string
		limit, percent      int64
	}{
		{"", "", "", minMemoryLimit, defaultGCPercent},
		{"MemoryLimit = 0", "", "", limit0, defaultGCPercent},
		{"MemoryLimit = 209715200", "", "", 200 << 20, defaultGCPercent},
		{"", "300MiB", "150", limit0, gogc0}, // the runtime read them at start-up
		{"GCPolicy = \"off\"", "", "", 1 << 30, -1},
	} {
		t.Setenv("GOMEMLIMIT", tc.memlimit)
		t.Setenv("GOGC", tc.gogc)
		runtime.GC() // the automatic limit follows the heap: other tests' garbage out
		h := startHTTPApp(t, "127.0.0.1:0", tc.app)
		if got := debug.SetMemoryLimit(-1); tc.limit == minMemoryLimit {
			// Twice the heap when that is more: what other tests of the
			// package keep alive.
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if got < minMemoryLimit || got > max(minMemoryLimit, 4*int64(ms.HeapAlloc)) {
				t.Errorf("%q GOMEMLIMIT=%q: limit %d during the run, want %d or twice the heap (%d now)", tc.app, tc.memlimit, got, tc.limit, ms.HeapAlloc)
			}
		} else if got != tc.limit {
			t.Errorf("%q GOMEMLIMIT=%q: limit %d during the run, want %d", tc.app, tc.memlimit, got, tc.limit)
		}
		if got := gcPercent(); got != tc.percent {
			t.Errorf("%q GOGC=%q: GOGC %d during the run, want %d", tc.app, tc.gogc, got, tc.percent)
		}
		if got := runtime.GOMAXPROCS(0); got != procs0+2 {
			t.Errorf("%q: GOMAXPROCS %d during the run of one RT thread and one network thread, want %d", tc.app, got, procs0+2)
		}
		h.Stop()
		if got := debug.SetMemoryLimit(-1); got != limit0 || gcPercent() != gogc0 || runtime.GOMAXPROCS(0) != procs0 {
			t.Errorf("%q: limit %d, GOGC %d, GOMAXPROCS %d after Stop, want %d, %d, %d", tc.app, got, gcPercent(), runtime.GOMAXPROCS(0), limit0, gogc0, procs0)
		}
	}
}

func TestGOMAXPROCSFromTheEnvironmentWins(t *testing.T) {
	procs0 := runtime.GOMAXPROCS(0)
	t.Setenv("GOMAXPROCS", "1")
	startHTTPApp(t, "127.0.0.1:0", "")
	if got := runtime.GOMAXPROCS(0); got != procs0 {
		t.Errorf("GOMAXPROCS %d with GOMAXPROCS set in the environment, want %d", got, procs0)
	}
}

// RuntimePriority warns when the process has one CPU, where the runtime's
// threads would share it at SCHED_FIFO; not without it, nor with two.
func TestOneCPURuntime(t *testing.T) {
	for _, c := range []struct {
		prio, cpus int
		warn       bool
	}{{1, 1, true}, {1, 2, false}, {0, 1, false}, {5, 8, false}} {
		if got := oneCPURuntime(c.prio, c.cpus) != ""; got != c.warn {
			t.Errorf("oneCPURuntime(%d, %d): warns %v, want %v", c.prio, c.cpus, got, c.warn)
		}
	}
}
