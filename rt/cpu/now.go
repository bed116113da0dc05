package cpu

import "time"

// nowBase and nowOff anchor Now: CLOCK_MONOTONIC (MonotonicNanos) at
// nowBase is nowOff.
var nowBase, nowOff = anchorNow()

// anchorNow reads MonotonicNanos between two readings of the vDSO clock,
// keeping the tightest of a few brackets.
func anchorNow() (time.Time, int64) {
	base := time.Now()
	best, off := int64(1<<62), int64(0)
	for range 5 {
		a := int64(time.Since(base))
		m := MonotonicNanos()
		b := int64(time.Since(base))
		if b-a < best {
			best, off = b-a, m-(a+b)/2
		}
	}
	return base, off
}

// Now returns MonotonicNanos's clock read through the vDSO (time.Since
// from an anchor taken at start-up): no system call, about 25 ns, never
// allocates, and within a microsecond of MonotonicNanos. Stamp events
// with it on the RT thread where MonotonicNanos would cost a system call.
func Now() int64 { return int64(time.Since(nowBase)) + nowOff }
