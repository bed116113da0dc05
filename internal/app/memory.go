package app

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/streamerd/streamerd/internal/config"
)

// minMemoryLimit is the smallest soft memory limit the daemon sets by
// itself: far above what it uses (about 11 MB of RSS at rest, 16 MB under
// the abuse load of TestAbuseCostsTheRTLoopLittle), so the collector never
// runs for the limit in normal use, and low enough that a burst of garbage
// cannot grow the heap into hundreds of megabytes.
const minMemoryLimit = 128 << 20

// setMemoryLimit applies App.MemoryLimit for the run with GCPolicy
// "default" (with "off" the RT thread sets it with GOGC=off) and returns
// the limit in force and where it came from. MemoryLimitAuto becomes
// GOMEMLIMIT when the environment sets it, else twice the heap the built
// application holds (its signal memory and buffers) with minMemoryLimit
// as the floor, so the limit never sits under what the application needs.
// restoreMemoryLimit undoes it.
func (a *App) setMemoryLimit() (limit int64, source string) {
	cfg := a.file.App
	if cfg.GCPolicy == "off" {
		return cfg.MemoryLimit, "GCPolicy off"
	}
	limit, source = cfg.MemoryLimit, "App.MemoryLimit"
	if limit == config.MemoryLimitAuto {
		if os.Getenv("GOMEMLIMIT") != "" {
			return debug.SetMemoryLimit(-1), "GOMEMLIMIT"
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		limit, source = max(minMemoryLimit, 2*int64(ms.HeapAlloc)), "automatic"
	}
	if limit == 0 {
		return debug.SetMemoryLimit(-1), "none"
	}
	a.prevMemoryLimit = debug.SetMemoryLimit(limit)
	a.memoryLimitSet = true
	return limit, source
}

func (a *App) restoreMemoryLimit() {
	if a.memoryLimitSet {
		debug.SetMemoryLimit(a.prevMemoryLimit)
		a.memoryLimitSet = false
	}
}
