package udpstreamer

// handoff is the ring of cycles waiting between Synchronise and the network
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
type handoff struct {
	slots  [][]byte
	stamps []int64 // CLOCK_MONOTONIC ns since the Streamer's epoch
	first  int     // slot of the oldest waiting cycle
	n      int     // cycles waiting
}

// newHandoff allocates depth slots of size bytes.
func newHandoff(depth, size int) handoff {
	h := handoff{slots: make([][]byte, depth), stamps: make([]int64, depth)}
	for i := range h.slots {
		h.slots[i] = make([]byte, size)
	}
	return h
}

// put returns the slot for a new cycle and whether it overwrites the oldest
// waiting one. The caller fills slots[i] and stamps[i].
func (h *handoff) put() (i int, overwrote bool) {
	depth := len(h.slots)
	if h.n == 0 {
		// Nothing waits: start again at slot 0, so while the network
		// thread keeps up the RT thread writes the same two buffers in
		// turn (slot 0's and the one the network thread swaps back), warm
		// in its cache, whatever the depth.
		h.first = 0
	}
	if h.n == depth {
		h.first = h.next(h.first)
		h.n--
		overwrote = true
	}
	i = h.first + h.n
	if i >= depth {
		i -= depth
	}
	h.n++
	return i, overwrote
}

// next returns the slot after i, round the ring: a compare, not a
// division, on the RT thread's path.
func (h *handoff) next(i int) int {
	if i++; i == len(h.slots) {
		return 0
	}
	return i
}

// take swaps spare for the oldest waiting cycle and returns it with its
// stamp; ok is false, and spare is returned unchanged, when none waits.
func (h *handoff) take(spare []byte) (cycle []byte, stamp int64, ok bool) {
	if h.n == 0 {
		return spare, 0, false
	}
	i := h.first
	cycle, stamp = h.slots[i], h.stamps[i]
	h.slots[i] = spare
	h.first = h.next(i)
	h.n--
	return cycle, stamp, true
}

// waiting returns the cycles waiting.
func (h *handoff) waiting() int { return h.n }
