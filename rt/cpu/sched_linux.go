//go:build !portable

package cpu

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// PinCurrentThread restricts the calling OS thread to the CPUs in m, then
// reads the affinity back and returns an error unless it equals m. The zero
// Mask is a no-op. The caller must have called runtime.LockOSThread first,
// otherwise the goroutine may move to another, unpinned thread.
func PinCurrentThread(m Mask) error {
	if m == 0 {
		return nil
	}
	var set unix.CPUSet
	for i := 0; i < 64; i++ {
		if m.Has(i) {
			set.Set(i)
		}
	}
	allowed, _ := CurrentThreadAffinity()
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		if errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("cpu: CPUMask %v names no CPU this process may run on (it may run on %v): %w", m, allowed, err)
		}
		return fmt.Errorf("cpu: sched_setaffinity(%v): %w", m, err)
	}
	got, err := CurrentThreadAffinity()
	if err != nil {
		return err
	}
	if got != m {
		return fmt.Errorf("%w: CPUMask %v, but the thread may only run on %v (the process may run on %v)", ErrAffinityMismatch, m, got, allowed)
	}
	return nil
}

// CurrentThreadAffinity returns the calling thread's CPU affinity as read
// with sched_getaffinity. It does not allocate.
func CurrentThreadAffinity() (Mask, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, err
	}
	var m Mask
	for i := 0; i < 64; i++ {
		if set.IsSet(i) {
			m |= 1 << uint(i)
		}
	}
	return m, nil
}

// SetFIFOPriority puts the calling thread in SCHED_FIFO with priority prio
// (1 to 99). Without root, CAP_SYS_NICE or a large enough RLIMIT_RTPRIO the
// kernel refuses with EPERM and the error says so; errors.Is(err,
// unix.EPERM) still holds. Call it after runtime.LockOSThread.
func setFIFOPriority(prio int) error {
	if err := checkFIFO(prio); err != nil {
		return err
	}
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
	err := unix.SchedSetAttr(0, &attr, 0)
	if errors.Is(err, unix.EPERM) {
		return fmt.Errorf("cpu: SCHED_FIFO priority %d refused: needs root or CAP_SYS_NICE (or RLIMIT_RTPRIO): %w", prio, err)
	}
	if err != nil {
		return fmt.Errorf("cpu: SCHED_FIFO priority %d: %w", prio, err)
	}
	return nil
}

// LockMemory locks every current and future page of the process in RAM
// (mlockall(MCL_CURRENT|MCL_FUTURE)), so the RT thread never takes a major
// page fault. It acts on the whole process and is never undone.
func LockMemory() error {
	err := unix.Mlockall(unix.MCL_CURRENT | unix.MCL_FUTURE)
	switch {
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("cpu: mlockall refused: needs root or CAP_IPC_LOCK: %w", err)
	case errors.Is(err, unix.ENOMEM):
		return fmt.Errorf("cpu: mlockall: RLIMIT_MEMLOCK too small for the process (raise ulimit -l or run as root): %w", err)
	case err != nil:
		return fmt.Errorf("cpu: mlockall: %w", err)
	}
	return nil
}

// SetTimerSlack sets the calling thread's timer slack, the time the kernel
// may add to its timed sleeps to group wake-ups (50 µs by default; threads
// under SCHED_FIFO have none). A thread that paces itself with SleepUntil
// and normal scheduling sets it to 1 ns. The setting dies with the thread.
func SetTimerSlack(d time.Duration) error {
	if d < 1 {
		return fmt.Errorf("cpu: timer slack %v: must be at least 1 ns", d)
	}
	return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d), 0, 0, 0)
}
