//go:build !portable

package cpu

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// pinCurrentThread restricts the calling OS thread to the CPUs in m (not
// 0) with sched_setaffinity and reads the affinity back.
func pinCurrentThread(m Mask) error {
	var set unix.CPUSet
	for i := 0; i < 64; i++ {
		if m.Has(i) {
			set.Set(i)
		}
	}
	allowed, _ := currentThreadAffinity()
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		if errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("cpu: CPUMask %v names no CPU this process may run on (it may run on %v): %w", m, allowed, err)
		}
		return fmt.Errorf("cpu: sched_setaffinity(%v): %w", m, err)
	}
	got, err := currentThreadAffinity()
	if err != nil {
		return err
	}
	if got != m {
		return fmt.Errorf("%w: CPUMask %v, but the thread may only run on %v (the process may run on %v)", errAffinityMismatch, m, got, allowed)
	}
	return nil
}

// currentThreadAffinity returns the calling thread's CPU affinity as read
// with sched_getaffinity. It does not allocate.
func currentThreadAffinity() (Mask, error) {
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

// setFIFOPriority puts the calling thread in SCHED_FIFO with priority prio
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

// setTimerSlack sets the calling thread's timer slack with
// prctl(PR_SET_TIMERSLACK).
func setTimerSlack(d time.Duration) error {
	return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d), 0, 0, 0)
}
