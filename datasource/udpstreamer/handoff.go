package udpstreamer

// cycleRing is the ring of cycles waiting between Synchronise and the network
// thread: HandOffDepth ready buffers, each holding one cycle (room for the
// hrtTimestamp, then signal memory) and the instant it was published. It
// has no lock of its own: the Streamer's FastLock guards every call.
//
// The RT thread fills the slot put returns; when every slot holds a waiting
// cycle, put hands back the oldest one, which is overwritten and counted as
// skipped by the caller. The network thread takes the oldest waiting cycle
// by swapping its own buffer for the slot's (two slice headers), so it
// never copies under the lock and the RT thread never waits for a copy.
// With one slot this is the protocol's latest-value-wins hand-off.
//
// Each slot also carries a gap: DATA counter values the network thread
// skips before it sends that cycle (SynchroniseAfterGap), so a client counts
// them lost. A gap is never dropped with its cycle: an overwritten cycle
// hands its gap on to the next cycle sent.
type cycleRing struct {
	slots  [][]byte
	stamps []int64  // CLOCK_MONOTONIC ns since the Streamer's epoch
	gaps   []uint32 // counter values to skip before the slot's cycle
	first  int      // slot of the oldest waiting cycle
	n      int      // cycles waiting
}

// newCycleRing allocates depth slots of size bytes.
func newCycleRing(depth, size int) cycleRing {
	h := cycleRing{slots: make([][]byte, depth), stamps: make([]int64, depth), gaps: make([]uint32, depth)}
	for i := range h.slots {
		h.slots[i] = make([]byte, size)
	}
	return h
}

// put returns the slot for a new cycle and whether it overwrites the oldest
// waiting one. The caller fills slots[i] and stamps[i], and sets gaps[i]
// to its own gap plus carry: the gap of an overwritten cycle that no
// waiting cycle took over.
func (h *cycleRing) put() (i int, overwrote bool, carry uint32) {
	depth := len(h.slots)
	if h.n == 0 {
		// Nothing waits: start again at slot 0, so while the network
		// thread keeps up the RT thread writes the same two buffers in
		// turn (slot 0's and the one the network thread swaps back), warm
		// in its cache, whatever the depth.
		h.first = 0
	}
	if h.n == depth {
		carry = h.gaps[h.first]
		h.first = h.next(h.first)
		h.n--
		overwrote = true
		if h.n > 0 && carry != 0 {
			h.gaps[h.first] += carry
			carry = 0
		}
	}
	i = h.first + h.n
	if i >= depth {
		i -= depth
	}
	h.n++
	return i, overwrote, carry
}

// next returns the slot after i, round the ring: a compare, not a
// division, on the RT thread's path.
func (h *cycleRing) next(i int) int {
	if i++; i == len(h.slots) {
		return 0
	}
	return i
}

// take swaps spare for the oldest waiting cycle and returns it with its
// stamp; ok is false, and spare is returned unchanged, when none waits.
func (h *cycleRing) take(spare []byte) (cycle []byte, stamp int64, ok bool) {
	cycle, stamp, _, ok = h.takeGap(spare)
	return cycle, stamp, ok
}

// takeGap is take that also returns the cycle's gap.
func (h *cycleRing) takeGap(spare []byte) (cycle []byte, stamp int64, gap uint32, ok bool) {
	if h.n == 0 {
		return spare, 0, 0, false
	}
	i := h.first
	cycle, stamp, gap = h.slots[i], h.stamps[i], h.gaps[i]
	h.slots[i] = spare
	h.first = h.next(i)
	h.n--
	return cycle, stamp, gap, true
}

// waiting returns the cycles waiting.
func (h *cycleRing) waiting() int { return h.n }

// cacheLine keeps apart what the RT thread writes every cycle and what the
// network thread spins on (two of the 64-byte lines amd64 and arm64 fetch
// in pairs).
const cacheLine = 128
