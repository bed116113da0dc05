package rt

import (
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
)

// gcOff holds the garbage collector off while any thread with
// Config.GCOff runs. The GC settings belong to the whole process, so this
// is the one place that changes them: the first thread to start saves
// them, the last to stop restores them, and meanwhile the memory limit is
// the smallest of the running threads' MemoryLimits. (Each thread saving
// and restoring them itself left the GC off for good when two stopped out
// of their start order.)
var gcOff struct {
	mu        sync.Mutex
	limits    []int64 // the MemoryLimit of each thread holding it
	prevGC    int
	prevLimit int64
}

// holdGCOff turns the GC off for one more thread, with its memory limit.
func holdGCOff(limit int64) {
	gcOff.mu.Lock()
	defer gcOff.mu.Unlock()
	if len(gcOff.limits) == 0 {
		// Start from a small heap; not with another thread's GC off, whose
		// cycle this collection would stop.
		runtime.GC()
		gcOff.prevGC = debug.SetGCPercent(-1)
		gcOff.prevLimit = debug.SetMemoryLimit(limit)
	}
	gcOff.limits = append(gcOff.limits, limit)
	debug.SetMemoryLimit(slices.Min(gcOff.limits))
}

// releaseGCOff ends one thread's hold: the last restores the settings from
// before the first.
func releaseGCOff(limit int64) {
	gcOff.mu.Lock()
	defer gcOff.mu.Unlock()
	i := slices.Index(gcOff.limits, limit)
	if i < 0 {
		return
	}
	gcOff.limits = slices.Delete(gcOff.limits, i, i+1)
	if len(gcOff.limits) == 0 {
		debug.SetGCPercent(gcOff.prevGC)
		debug.SetMemoryLimit(gcOff.prevLimit)
		return
	}
	debug.SetMemoryLimit(slices.Min(gcOff.limits))
}
