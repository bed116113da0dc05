package cpu

import (
	"fmt"
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
