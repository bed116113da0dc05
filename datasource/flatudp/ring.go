package flatudp

import "sync/atomic"

// cacheLine separates what the two threads write: the indices and the
// slots. 128 bytes covers the adjacent-line prefetcher of x86 as well as
// 64-byte lines.
const cacheLine = 128

// slotStride returns the distance between two slots of size bytes: size
// rounded up to cacheLine, so the RT thread filling one slot never shares a
// line (or a prefetched pair of lines) with the sender thread reading the
// one before.
func slotStride(size int) int { return (size + cacheLine - 1) &^ (cacheLine - 1) }

// ring is a single-producer single-consumer ring of fixed-size cycles, with
// no lock. The RT thread is the only producer (push), the sender thread the
// only consumer (published, slot, release). Cycles are numbered from 0 in
// push order; cycle seq lives in slot seq mod n.
//
// head is the number of cycles pushed; tail the number released by the
// consumer. The producer writes a slot only when its previous occupant has
// been released (head - tail < n), and publishes it with a store of head;
// the consumer reads only slots below the head it loaded and hands them
// back with a store of tail. The two atomics order every slot access, so
// the ring is free of data races without a lock, and the producer never
// waits: a full ring refuses the cycle.
type ring struct {
	// Read-only after newRing.
	buf    []byte
	n      uint64
	size   int
	stride int

	_    [cacheLine]byte
	head atomic.Uint64 // written by the producer
	_    [cacheLine - 8]byte
	tail atomic.Uint64 // written by the consumer
	_    [cacheLine - 8]byte

	// Producer-only: its own head, and the last tail it loaded (reloaded
	// only when the ring looks full, so an uncongested push touches the
	// consumer's line only to publish).
	prodHead   uint64
	cachedTail uint64
	_          [cacheLine - 16]byte
}

func newRing(n, size int) *ring {
	stride := slotStride(size)
	return &ring{buf: make([]byte, n*stride), n: uint64(n), size: size, stride: stride}
}

// push copies src[:size] into the next slot and publishes it. It returns
// false, copying nothing, when all n slots hold unreleased cycles. Producer
// only; it never blocks and never allocates.
func (r *ring) push(src []byte) bool {
	h := r.prodHead
	if h-r.cachedTail >= r.n {
		r.cachedTail = r.tail.Load()
		if h-r.cachedTail >= r.n {
			return false
		}
	}
	off := int(h%r.n) * r.stride
	copy(r.buf[off:off+r.size], src)
	r.prodHead = h + 1
	r.head.Store(h + 1)
	return true
}

// published returns the number of cycles pushed so far; the consumer may
// read every slot below it that it has not released.
func (r *ring) published() uint64 { return r.head.Load() }

// slot returns the bytes of cycle seq. Consumer only, for a cycle below
// published and not below the last release.
func (r *ring) slot(seq uint64) []byte {
	off := int(seq%r.n) * r.stride
	return r.buf[off : off+r.size : off+r.size]
}

// release hands every cycle below upTo back to the producer. Consumer only;
// upTo never decreases.
func (r *ring) release(upTo uint64) { r.tail.Store(upTo) }

// depth returns the cycles pushed and not released: a snapshot for metrics,
// from any goroutine.
func (r *ring) depth() uint64 {
	t := r.tail.Load()
	h := r.head.Load()
	if h < t {
		return 0
	}
	return h - t
}
