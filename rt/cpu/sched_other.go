//go:build !linux || portable

package cpu

import (
	"fmt"
	"time"
)

// PinCurrentThread accepts only the zero Mask (no pinning) here: other
// systems have no sched_setaffinity.
func PinCurrentThread(m Mask) error {
	if m == 0 {
		return nil
	}
	return fmt.Errorf("cpu: CPUMask %v: %w", m, ErrNotSupported)
}

// CurrentThreadAffinity cannot be read here; it returns ErrNotSupported.
func CurrentThreadAffinity() (Mask, error) { return 0, ErrNotSupported }

// SetFIFOPriority checks prio, then returns ErrNotSupported.
func setFIFOPriority(prio int) error {
	if err := checkFIFO(prio); err != nil {
		return err
	}
	return fmt.Errorf("cpu: SCHED_FIFO priority %d: %w", prio, ErrNotSupported)
}

// LockMemory returns ErrNotSupported.
func LockMemory() error { return fmt.Errorf("cpu: mlockall: %w", ErrNotSupported) }

// SetTimerSlack returns ErrNotSupported: timer slack is Linux's.
func SetTimerSlack(d time.Duration) error {
	return fmt.Errorf("cpu: timer slack %v: %w", d, ErrNotSupported)
}
