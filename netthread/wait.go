package netthread

import (
	"time"

	"github.com/streamerd/streamerd/rt/rtsync"
)

// MaxSpin bounds the spin of Wait (and the NetworkSpin of the producers):
// beyond it a spinning thread costs a whole CPU for no gain over parking.
const MaxSpin = 100 * time.Millisecond

// spinChecks is how many looks at the event Wait takes between two reads of
// the clock (a read costs about 25 ns, a look about 1 ns).
const spinChecks = 32

// Wait is sem.WaitReset(timeout) that first spins for up to spin, looking
// at the event without parking. A Post that lands during the spin then
// costs the poster one compare-and-swap and no futex wake, and the waiter
// no wake-up from a halted CPU (microseconds each): worth it only on a
// thread pinned to a CPU of its own, which the spin keeps busy for up to
// spin after every wake-up. spin 0 parks at once.
func Wait(sem *rtsync.EventSem, spin, timeout time.Duration) error {
	if spin > 0 && !sem.Posted() {
		for start := time.Now(); time.Since(start) < spin; {
			for range spinChecks {
				if sem.Posted() {
					return sem.WaitReset(0)
				}
			}
		}
	}
	return sem.WaitReset(timeout)
}
