//go:build !linux || portable

package rtsync

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// parking emulates a futex where there is none: a waiter parks on the
// channel of the bucket its address hashes to, and a wake closes that
// channel, releasing every waiter of the bucket (which re-check their
// condition, as after any futex return).
type parking struct {
	mu sync.Mutex
	ch chan struct{} // nil while nobody waits
}

var buckets [64]parking

func bucketOf(addr *atomic.Uint32) *parking {
	return &buckets[(uintptr(unsafe.Pointer(addr))>>2)%uintptr(len(buckets))]
}

// futexWait parks while *addr == val, for at most timeout (negative:
// without limit). Checking *addr under the bucket's lock orders it with
// futexWakeAll, so a wake between the check and the park is not lost.
func futexWait(addr *atomic.Uint32, val uint32, timeout time.Duration) {
	b := bucketOf(addr)
	b.mu.Lock()
	if addr.Load() != val {
		b.mu.Unlock()
		return
	}
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	ch := b.ch
	b.mu.Unlock()
	if timeout < 0 {
		<-ch
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// futexWakeAll releases every waiter parked on addr's bucket.
func futexWakeAll(addr *atomic.Uint32) {
	b := bucketOf(addr)
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
}

// pollSleep sleeps d.
func pollSleep(d time.Duration) { time.Sleep(d) }
