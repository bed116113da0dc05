//go:build !linux || portable

package cpu

import (
	"fmt"
	"time"
)

// pinCurrentThread fails: other systems have no sched_setaffinity.
func pinCurrentThread(m Mask) error {
	return fmt.Errorf("cpu: CPUMask %v: %w", m, ErrNotSupported)
}

// currentThreadAffinity cannot be read here; it returns ErrNotSupported.
func currentThreadAffinity() (Mask, error) { return 0, ErrNotSupported }

// setFIFOPriority checks prio, then returns ErrNotSupported.
func setFIFOPriority(prio int) error {
	if err := checkFIFO(prio); err != nil {
		return err
	}
	return fmt.Errorf("cpu: SCHED_FIFO priority %d: %w", prio, ErrNotSupported)
}

// setTimerSlack returns ErrNotSupported: timer slack is Linux's.
func setTimerSlack(d time.Duration) error {
	return fmt.Errorf("cpu: timer slack %v: %w", d, ErrNotSupported)
}
