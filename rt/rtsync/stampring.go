package rtsync

import "sync/atomic"

// StampRows is how many stamps a StampRing holds.
const StampRows = 256

// StampRing carries instants (or any int64) from one producer, typically
// the RT thread noting an event, to one consumer, without a lock: the
// producer never waits and never allocates, and stamps the consumer did
// not drain before StampRows newer ones came are lost, counted. The zero
// value is ready to use, so a StampRing can sit in a struct with no set-up.
type StampRing struct {
	buf  [StampRows]atomic.Int64
	head atomic.Uint64 // stamps written
	tail uint64        // consumer only: the next stamp to drain
}

// Stamp records v; producer only. It is two atomic stores.
func (r *StampRing) Stamp(v int64) {
	h := r.head.Load()
	r.buf[h%StampRows].Store(v)
	r.head.Store(h + 1)
}

// stamped returns how many stamps were recorded so far, from any
// goroutine.
func (r *StampRing) stamped() uint64 { return r.head.Load() }

// Drain copies the oldest stamps not drained yet into dst, as many as fit,
// and returns how many it copied and how many were lost since the last
// Drain (overwritten before it came). Consumer only; it never allocates.
func (r *StampRing) Drain(dst []int64) (n int, lost uint64) {
	h := r.head.Load()
	start := r.tail
	if h-start > StampRows {
		lost = h - StampRows - start
		start = h - StampRows
	}
	m := min(h-start, uint64(len(dst)))
	for i := uint64(0); i < m; i++ {
		dst[i] = r.buf[(start+i)%StampRows].Load()
	}
	r.tail = start + m
	// A stamp whose slot the producer reused while it was copied is
	// dropped: the producer writes slot h%StampRows before publishing
	// h+1, so after h2 published every slot of a stamp below
	// h2+1-StampRows may hold a newer one.
	if h2 := r.head.Load(); h2+1 > StampRows {
		if from := h2 + 1 - StampRows; from > start {
			bad := min(from-start, m)
			copy(dst, dst[bad:m])
			m -= bad
			lost += bad
		}
	}
	return int(m), lost
}
