package rd100s

import (
	"golang.org/x/sys/unix"

	"github.com/streamerd/streamerd/rt/cpu"
)

// monoNow returns CLOCK_MONOTONIC in nanoseconds: the clock of t_us and of
// the emission grid, the one clock_nanosleep sleeps on.
func monoNow() int64 { return cpu.MonotonicNanos() }

// sleepUntil sleeps until CLOCK_MONOTONIC reaches abs nanoseconds with
// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): an absolute deadline, so
// the time spent working between sleeps never accumulates into drift. A
// signal (the Go runtime preempts with SIGURG) restarts the sleep.
func sleepUntil(abs int64) {
	ts := unix.NsecToTimespec(abs)
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}
