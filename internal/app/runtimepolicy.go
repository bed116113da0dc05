package app

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/streamerd/streamerd/internal/config"
)

// Defaults of the daemon's runtime policy (docs/config.md, "Memory, the
// collector and the scheduler").
const (
	// minMemoryLimit is the smallest soft memory limit the daemon sets by
	// itself: far above what it uses (about 11 MB of RSS at rest, 16 MB
	// under the abuse load of TestAbuseCostsTheRTLoopLittle), so the
	// collector never runs for the limit in normal use, and low enough
	// that a burst of garbage cannot grow the heap into hundreds of
	// megabytes.
	minMemoryLimit = 128 << 20
	// defaultGCPercent is the GOGC of the run unless the environment sets
	// one. Every collection stops the RT goroutine twice (and on a loaded
	// machine a stop lasts as long as the OS takes to run every thread
	// holding a P); the live heap is a few MB, so Go's 100 would collect
	// every 4 MB of garbage the control plane leaves. 400 collects four
	// times less often; the memory limit still caps the heap.
	defaultGCPercent = 400
)

// runtimePolicy is what the run changed in the Go runtime, to restore at
// Stop.
type runtimePolicy struct {
	prevLimit, prevPercent int
	limitSet, percentSet   bool
	runtimePrio            int // App.RuntimePriority applied, 0 if none
}

// setMemoryPolicy applies App.MemoryLimit and the GC percentage for the
// run with GCPolicy "default" (with "off" the RT thread sets GOGC=off and
// the limit) and returns the limit in force and where it came from.
// MemoryLimitAuto becomes GOMEMLIMIT when the environment sets it, else
// twice the heap the built application holds (its signal memory and
// buffers) with minMemoryLimit as the floor, so the limit never sits under
// what the application needs. GOGC from the environment wins over
// defaultGCPercent. restoreRuntime undoes it.
func (a *App) setMemoryPolicy() (limit int64, source string) {
	cfg := a.file.App
	if cfg.GCPolicy == "off" {
		return cfg.MemoryLimit, "GCPolicy off"
	}
	if os.Getenv("GOGC") == "" {
		a.rtp.prevPercent, a.rtp.percentSet = debug.SetGCPercent(defaultGCPercent), true
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
	a.rtp.prevLimit, a.rtp.limitSet = int(debug.SetMemoryLimit(limit)), true
	return limit, source
}

// oneCPURuntime returns the warning for RuntimePriority prio in a process
// that may run on cpus CPUs (its affinity at start, as runtime.NumCPU
// reads it), "" when there is none. On one CPU every thread of the runtime
// shares it at SCHED_FIFO prio, where a thread that spins is not
// preempted by its equals: with the process confined to one CPU by
// taskset beside a pinned RT thread at FIFO 80, one run of twelve on the
// 2-vCPU VM of BENCHMARKS.md hung, a runtime thread spinning on that CPU
// while the collector waited for the others (RELIABILITY.md).
func oneCPURuntime(prio, cpus int) string {
	if prio <= 0 || cpus >= 2 {
		return ""
	}
	return "RuntimePriority on a single CPU: the runtime's threads all share it at SCHED_FIFO, where one that spins holds the others off it; leave the process two CPUs or more (taskset, cpuset), or set RuntimePriority = 0"
}

// restoreRuntime undoes setMemoryPolicy and setRuntimePriority.
func (a *App) restoreRuntime() {
	if a.rtp.runtimePrio > 0 {
		restoreRuntimePriority(a.rtp.runtimePrio)
	}
	if a.rtp.limitSet {
		debug.SetMemoryLimit(int64(a.rtp.prevLimit))
	}
	if a.rtp.percentSet {
		debug.SetGCPercent(a.rtp.prevPercent)
	}
	a.rtp = runtimePolicy{}
}

// gcPercent returns the GOGC in force (-1 when off), read without
// changing it.
func gcPercent() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
