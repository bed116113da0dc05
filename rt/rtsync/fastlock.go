package rtsync

import (
	"errors"
	"sync/atomic"
	"time"
)

// ErrTimeout is returned by FastLock and EventSem.WaitReset when the timeout
// expires first. It is a sentinel: returning it never allocates.
var ErrTimeout = errors.New("rtsync: timeout")

// Forever, passed as a timeout, waits without limit (MARTe2's TTInfiniteWait).
const Forever time.Duration = -1

// spinsPerCheck is how many failed test-and-set attempts FastLock makes
// between clock reads and sleeps. A read of time.Since costs about 25 ns, a
// failed attempt a few ns, so the clock costs under a fifth of the spin.
const spinsPerCheck = 64

// FastLock is a test-and-set spin-lock, MARTe2's FastPollingMutexSem. The
// zero value is unlocked. It never parks the goroutine and never allocates,
// so it suits short critical sections shared between the RT thread and
// another thread that may run on a different CPU. It is not reentrant and any
// goroutine may unlock it.
//
// Two spinning SCHED_FIFO threads on one CPU starve each other: give the
// waiter a sleep, or pin the threads to different CPUs.
type FastLock struct {
	_ noCopy
	v atomic.Uint32
}

// noCopy makes go vet's copylocks check flag copies of the types embedding it.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// tryLock takes the lock if it is free and reports whether it did.
func (l *FastLock) tryLock() bool {
	return l.v.Load() == 0 && l.v.CompareAndSwap(0, 1)
}

// FastLock takes the lock, spinning until it is free. After every
// spinsPerCheck failed attempts it checks the timeout and, if sleep > 0,
// sleeps that long with nanosleep (the thread keeps its P, as MARTe2's
// polling sleep does). timeout Forever waits without limit; timeout 0, or
// any other below 0 (a deadline already past), is a single attempt (a
// try-lock). It returns ErrTimeout if the lock stayed
// taken.
func (l *FastLock) FastLock(timeout, sleep time.Duration) error {
	if l.tryLock() {
		return nil
	}
	if timeout == 0 || timeout < 0 && timeout != Forever {
		return ErrTimeout
	}
	var start time.Time
	if timeout > 0 {
		start = time.Now()
	}
	for {
		for range spinsPerCheck {
			if l.tryLock() {
				return nil
			}
		}
		if timeout > 0 && time.Since(start) >= timeout {
			return ErrTimeout
		}
		if sleep > 0 {
			pollSleep(sleep)
		}
	}
}

// FastUnLock releases the lock.
func (l *FastLock) FastUnLock() {
	l.v.Store(0)
}
