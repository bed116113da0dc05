package scope

import "math"

// Markers put the stream's accidents on the time axis: updates lost and
// cycles skipped before an update, at that update's time, and silences,
// at the last time before the stream stopped. Each clock keeps its own,
// at most maxMarks of them (older ones are forgotten), within the Hub's
// memory budget.

// MarkKind is what a marker stands for.
type MarkKind uint8

// Marker kinds.
const (
	MarkLost    MarkKind = iota // updates the sequence numbers say never arrived, before the marker's update
	MarkSkipped                 // cycles the server skipped before the marker's update, seen from its time stamps
	MarkSilence                 // the stream stopped after the marker's time
	numMarkKinds
)

// Marker bounds.
const (
	maxMarks        = 1024 // per clock
	markBytes       = 16   // the memory of a mark
	maxFrameMarkers = 4096 // per frame; markers of one column and kind are summed first
)

type mark struct {
	t    float64 // seconds of the clock
	n    uint32
	kind MarkKind
}

// markRing is one clock's markers in the order they happened. Guarded by
// the Hub's lock.
type markRing struct {
	m       []mark // len maxMarks once the first marker came
	head, n int
}

// add appends a marker, making the ring when the budget allows.
func (r *markRing) add(m mark, b *budget) {
	if r.m == nil {
		if !b.take(maxMarks * markBytes) {
			return
		}
		r.m = make([]mark, maxMarks)
	}
	if r.n == len(r.m) {
		r.head = (r.head + 1) % len(r.m)
		r.n--
	}
	r.m[(r.head+r.n)%len(r.m)] = m
	r.n++
}

// at returns marker i, 0 the oldest.
func (r *markRing) at(i int) mark { return r.m[(r.head+i)%len(r.m)] }

// missed records, for the next update pushed, the updates lost and the
// cycles skipped just before it. The source's goroutine only.
func (h *Hub) missed(lost, skipped uint32) {
	h.mu.Lock()
	h.pendLost += lost
	h.pendSkipped += skipped
	h.mu.Unlock()
}

// silenced records a silence at each clock's newest time. The source's
// goroutine only, once per silence.
func (h *Hub) silenced() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clocks {
		if h.clocks[c].ok {
			h.marks[c].add(mark{t: h.clocks[c].newest, n: 1, kind: MarkSilence}, &h.mem)
		}
	}
}

// markPending puts the pending lost and skipped counts at u's first time
// on each clock. Caller holds the lock.
func (h *Hub) markPending(u update) {
	clear(h.marked)
	for i := range h.sigs {
		c := h.sigs[i].Clock
		if c < 0 || c >= len(h.marks) || h.marked[c] {
			continue
		}
		h.marked[c] = true
		ts := u.Times(i)
		if len(ts) == 0 || math.IsNaN(ts[0]) {
			continue
		}
		if h.pendLost > 0 {
			h.marks[c].add(mark{t: ts[0], n: h.pendLost, kind: MarkLost}, &h.mem)
		}
		if h.pendSkipped > 0 {
			h.marks[c].add(mark{t: ts[0], n: h.pendSkipped, kind: MarkSkipped}, &h.mem)
		}
	}
	h.pendLost, h.pendSkipped = 0, 0
}

// markAcc sums the markers of one kind in one pixel column.
type markAcc struct {
	t float64
	n uint64
}

// appendMarks appends clock c's markers within [t0, t1] (absolute times),
// relative to anchor, summed per column and kind; it stops at room
// markers and returns how many it appended. Caller holds the read lock.
func (h *Hub) appendMarks(b []byte, c int, anchor, t0, t1 float64, cols, room int) ([]byte, int) {
	if c < 0 || c >= len(h.marks) || room <= 0 || !(t1 > t0) {
		return b, 0
	}
	r := &h.marks[c]
	scale := float64(cols) / (t1 - t0)
	var acc [numMarkKinds]markAcc
	col, n := -1, 0
	flush := func() {
		for k := range acc {
			if acc[k].n > 0 && n < room {
				b = appendMarker(b, acc[k].t-anchor, uint32(min(acc[k].n, math.MaxUint32)), c, MarkKind(k))
				n++
			}
			acc[k] = markAcc{}
		}
	}
	for i := range r.n {
		m := r.at(i)
		if m.t < t0 || m.t > t1 {
			continue
		}
		if k := min(int((m.t-t0)*scale), cols-1); k != col {
			flush()
			col = k
		}
		a := &acc[m.kind]
		if a.n == 0 {
			a.t = m.t
		}
		a.n += uint64(m.n)
	}
	flush()
	return b, n
}
