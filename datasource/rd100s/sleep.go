package rd100s

import "github.com/streamerd/streamerd/rt/cpu"

// monoNow returns CLOCK_MONOTONIC in nanoseconds: the clock of t_us and of
// the emission grid, the one clock_nanosleep sleeps on.
func monoNow() int64 { return cpu.MonotonicNanos() }

// sleepUntil sleeps until CLOCK_MONOTONIC reaches abs nanoseconds with
// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): an absolute deadline, so
// the time spent working between sleeps never accumulates into drift. A
// signal (the Go runtime preempts with SIGURG) restarts the sleep; a failed
// sleep returns early and the emitter's loop sleeps again.
func sleepUntil(abs int64) { _ = cpu.SleepUntil(abs) }
