package cpu

import (
	"fmt"
	"io"
	"time"
)

// PinCurrentThread restricts the calling OS thread to the CPUs in m, then
// reads the affinity back and returns an error unless it equals m. The
// zero Mask is a no-op. The caller must have called runtime.LockOSThread
// first, otherwise the goroutine may move to another, unpinned thread;
// StartThread does both. Off Linux only the zero Mask works (the rest
// returns ErrNotSupported).
func PinCurrentThread(m Mask) error {
	if m == 0 {
		return nil
	}
	return pinCurrentThread(m)
}

// SetTimerSlack sets the calling thread's timer slack, the time the kernel
// may add to its timed sleeps to group wake-ups (50 µs by default; threads
// under SCHED_FIFO have none). A thread that paces itself with SleepUntil
// and normal scheduling sets it to 1 ns. The setting dies with the thread.
// Timer slack is Linux's: elsewhere it returns ErrNotSupported.
func SetTimerSlack(d time.Duration) error {
	if d < 1 {
		return fmt.Errorf("cpu: timer slack %v: must be at least 1 ns", d)
	}
	return setTimerSlack(d)
}

// ThreadID returns the calling OS thread's id (gettid), the TID that names
// it under /proc/self/task. It is a system call: call it once, from a
// thread locked with runtime.LockOSThread, before a loop. Off Linux it
// returns 0.
func ThreadID() int { return threadID() }

// HoldWakeLatency asks the kernel, through the PM QoS interface
// /dev/cpu_dma_latency, to keep every CPU able to wake within us
// microseconds, for as long as the returned Closer is open. On a VM whose
// idle vCPUs halt, waking a parked thread otherwise costs several
// microseconds more (BENCHMARKS.md); cyclictest holds 0 by default for the
// same reason. It costs power: idle CPUs stay in shallow states. It needs
// root (or write access to the device); off Linux it returns
// ErrNotSupported.
func HoldWakeLatency(us int) (io.Closer, error) {
	if us < 0 {
		return nil, fmt.Errorf("cpu: wake latency %d µs: must be ≥ 0", us)
	}
	return holdWakeLatency(us)
}
