package rtsync

import (
	"sync/atomic"
	"time"
)

// The state word: bit 0 is the event, the bits above count the waiters
// registered to park (semWaiter each), so Post makes a FUTEX_WAKE only
// while somebody may be parked, and never after a Wait that timed out.
const (
	semPosted = 1 << 0
	semWaiter = 1 << 1
)

// EventSem is a manual-reset event, MARTe2's EventSem: Post sets it and
// releases every waiter, it stays set until Reset. The zero value is reset
// and ready to use; it must not be copied (go vet checks).
//
// Post costs one atomic compare-and-swap when nobody is parked and one
// FUTEX_WAKE system call more when somebody is (PostWoke says which); it never blocks and never
// allocates, so the RT thread may call it. Waiters park on a Linux futex
// (elsewhere on a channel: see the package doc).
//
// For the latest-value-wins hand-off use WaitReset on the consumer side: a
// Post that lands while the consumer is busy is remembered once, so the
// consumer never misses the newest value and never sleeps through a Post.
type EventSem struct {
	_     noCopy
	state atomic.Uint32
}

// Post sets the event and wakes every parked waiter.
func (e *EventSem) Post() { e.PostWoke() }

// PostWoke is Post that reports whether it had to wake a parked waiter:
// true when it made the FUTEX_WAKE system call (a waiter was registered
// to park when Post set the event), false when it cost one
// compare-and-swap or less. A producer counts the true ones, which tell
// how often its consumer was asleep when a cycle came.
func (e *EventSem) PostWoke() (woke bool) {
	for {
		old := e.state.Load()
		if old&semPosted != 0 {
			// Already set: the Post that set it woke whoever was
			// parked, and a waiter that registered since sees the event
			// before it parks.
			return false
		}
		if e.state.CompareAndSwap(old, old|semPosted) {
			if old >= semWaiter {
				futexWakeAll(&e.state)
				return true
			}
			return false
		}
	}
}

// reset clears the event; later waits block until the next Post.
func (e *EventSem) reset() {
	for {
		old := e.state.Load()
		if old&semPosted == 0 || e.state.CompareAndSwap(old, old&^semPosted) {
			return
		}
	}
}

// posted reports whether the event is set, without waiting.
func (e *EventSem) posted() bool { return e.state.Load()&semPosted != 0 }

// waitSet blocks until the event is set or timeout expires (Forever: no
// limit; 0, or any other below 0: just test). It returns nil if the event is set, ErrTimeout
// otherwise. It does not clear the event.
func (e *EventSem) waitSet(timeout time.Duration) error {
	return e.wait(timeout, false)
}

// WaitReset waits until the event is set, up to timeout (Forever: without
// limit; 0, or any other below 0 such as a deadline already past: only
// looks), and on success clears it in the same atomic step, so exactly the
// Posts made after it returns will wake the next call. It returns nil if
// the event was set, ErrTimeout otherwise. This is the consumer half of
// the latest-value-wins pattern.
func (e *EventSem) WaitReset(timeout time.Duration) error {
	return e.wait(timeout, true)
}

func (e *EventSem) wait(timeout time.Duration, reset bool) error {
	if timeout < 0 && timeout != Forever {
		timeout = 0 // a deadline already past, as time.Until gives it: just test
	}
	var start time.Time
	if timeout > 0 {
		start = time.Now()
	}
	for {
		old := e.state.Load()
		if old&semPosted != 0 {
			if !reset || e.state.CompareAndSwap(old, old&^semPosted) {
				return nil
			}
			continue
		}
		if timeout == 0 {
			return ErrTimeout
		}
		left := Forever
		if timeout > 0 {
			if left = timeout - time.Since(start); left <= 0 {
				return ErrTimeout
			}
		}
		// Register, park while nothing changes, deregister: a Post between
		// the registration and the park changes the word, so the futex
		// returns at once and nothing is lost.
		if !e.state.CompareAndSwap(old, old+semWaiter) {
			continue
		}
		futexWait(&e.state, old+semWaiter, left) // woken, timed out or interrupted: re-check
		e.state.Add(^uint32(semWaiter - 1))
	}
}

// parked reports whether a waiter is registered to park (tests).
func (e *EventSem) parked() bool { return e.state.Load() >= semWaiter }
