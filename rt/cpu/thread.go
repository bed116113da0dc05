package cpu

import (
	"errors"
	"fmt"
	"runtime"
)

var (
	// ErrAffinityMismatch is returned (wrapped) by PinCurrentThread when the
	// affinity read back differs from the one requested (for example when a
	// cgroup cpuset excludes some of the CPUs).
	ErrAffinityMismatch = errors.New("cpu: affinity read back differs from the requested mask")

	// ErrNotSupported is returned (wrapped) on systems other than Linux by
	// the functions that need Linux: pinning to a non-zero Mask, reading
	// the affinity, SCHED_FIFO, mlockall and the PM QoS wake-up latency.
	ErrNotSupported = errors.New("cpu: not supported on " + runtime.GOOS)
)

// OnlineMask returns the CPUs the calling thread may run on now, which on an
// unpinned thread is the set usable by the process.
func OnlineMask() (Mask, error) { return CurrentThreadAffinity() }

// StartThread runs body on a new goroutine locked to its own OS thread,
// pinned to mask (0: not pinned) and, if priority is above 0, in SCHED_FIFO
// at that priority (1 to 99). It returns once the thread is set up, with
// the affinity read back inside it (0 if it could not be read) and a
// channel closed when body has returned. If pinning or the priority fails,
// body never runs, the goroutine has ended by the time StartThread
// returns, and the error says why.
//
// The goroutine never calls runtime.UnlockOSThread: when body returns, the
// Go runtime destroys the OS thread, so its affinity and priority never
// leak to other goroutines.
func StartThread(mask Mask, priority int, body func()) (affinity Mask, done <-chan struct{}, err error) {
	if priority < 0 || priority > 99 {
		return 0, nil, fmt.Errorf("cpu: priority %d out of range 0..99", priority)
	}
	finished := make(chan struct{})
	ready := make(chan error, 1)
	go func() {
		defer close(finished)
		runtime.LockOSThread()
		if err := setUpThread(mask, priority, &affinity); err != nil {
			ready <- err
			return
		}
		ready <- nil
		body()
	}()
	if err := <-ready; err != nil {
		<-finished
		return 0, nil, err
	}
	return affinity, finished, nil
}

// setUpThread pins the calling (locked) thread, reads its affinity back
// into *affinity and sets its priority.
func setUpThread(mask Mask, priority int, affinity *Mask) error {
	if err := PinCurrentThread(mask); err != nil {
		return err
	}
	*affinity, _ = CurrentThreadAffinity()
	if priority > 0 {
		return SetFIFOPriority(priority)
	}
	return nil
}
