package rtsync

import (
	"math/bits"
	"sync/atomic"
)

// cacheLine keeps the producer's and the consumer's indices apart.
const cacheLine = 128

// SampleRing carries rows of int64 samples (timings, typically) from one
// producer thread to one consumer without a lock: the producer never
// waits and never allocates, and a consumer that falls behind loses the
// oldest rows, counted, rather than holding the producer back. Every row
// has the same width, fixed at NewSampleRing.
//
// The producer fills the row Row returns, then Publish makes it visible.
// A zero SampleRing (not made by NewSampleRing) holds nothing: its Row is
// empty and Drain copies nothing.
// The consumer copies the published rows out with Drain. Every slot is an
// atomic, so the race detector and the memory model agree with the
// protocol; a row the producer overwrote while Drain copied it is dropped
// and counted, never returned torn.
type SampleRing struct {
	buf   []atomic.Int64
	width int
	rows  uint64 // a power of two

	_    [cacheLine]byte
	head atomic.Uint64 // rows published
	_    [cacheLine - 8]byte

	prodHead uint64 // producer only: the row being filled
	_        [cacheLine - 8]byte

	tail uint64 // consumer only: the next row to drain
}

// maxSamples bounds a SampleRing: 2^24 samples, 128 MiB.
const maxSamples = 1 << 24

// NewSampleRing returns a ring of at least rows rows of width samples
// (rows is rounded up to a power of two; both at least 1), within
// 2^24 samples in all: a width beyond that is cut to it, and the rows to
// the largest power of two that fits.
func NewSampleRing(rows, width int) *SampleRing {
	width = min(max(width, 1), maxSamples)
	n := uint64(1) << bits.Len64(uint64(max(rows, 1)-1))
	for n > maxSamples/uint64(width) { // width ≤ maxSamples: n stops at 1 or more
		n >>= 1
	}
	return &SampleRing{buf: make([]atomic.Int64, int(n)*width), width: width, rows: n}
}

// Row returns the row to fill next; producer only. Store every sample,
// then call Publish.
func (r *SampleRing) Row() []atomic.Int64 {
	off := int(r.prodHead&(r.rows-1)) * r.width
	return r.buf[off : off+r.width : off+r.width]
}

// Publish makes the row filled since the last Publish visible to Drain;
// producer only.
func (r *SampleRing) Publish() {
	r.prodHead++
	r.head.Store(r.prodHead)
}

// Published returns how many rows were published so far, from any
// goroutine.
func (r *SampleRing) published() uint64 { return r.head.Load() }

// Drain copies the oldest rows not drained yet into dst, one after the
// other, as many as fit (len(dst)/Width rows), and returns how many it
// copied and how many it lost since the last Drain: rows the producer
// overwrote before the consumer came for them. Consumer only; it never
// allocates.
func (r *SampleRing) Drain(dst []int64) (rows int, lost uint64) {
	w := r.width
	if w == 0 {
		return 0, 0
	}
	h := r.head.Load()
	start := r.tail
	if h-start > r.rows {
		lost = h - r.rows - start
		start = h - r.rows
	}
	n := min(h-start, uint64(len(dst)/w))
	for i := uint64(0); i < n; i++ {
		off := int((start+i)&(r.rows-1)) * w
		row := dst[int(i)*w : int(i+1)*w]
		for k := range row {
			row[k] = r.buf[off+k].Load()
		}
	}
	r.tail = start + n
	// Rows at or below h2-rows shared a slot with a row the producer wrote,
	// or is writing, while they were copied: drop them.
	if h2 := r.head.Load(); h2 >= r.rows {
		if from := h2 - r.rows + 1; from > start {
			bad := min(from-start, n)
			copy(dst, dst[int(bad)*w:int(n)*w])
			n -= bad
			lost += bad
		}
	}
	return int(n), lost
}
