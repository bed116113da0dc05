package frame

// Bounds of a plausible DATA counter step (docs/udpstreamer.md, "Sequence
// counters"). A counter further ahead of the last accepted one than
// MaxCounterJump, or further behind than ReorderWindow, is not loss or
// reordering but a restart of the sequence or a stray datagram.
const (
	ReorderWindow = 1 << 10 // updates: beyond this a backward step is implausible
	resyncStep    = 16      // a second implausible counter at most this far past the first confirms a new sequence
)

// Verdict is what a SequenceGate decided about one update.
type Verdict uint8

// Verdicts of SequenceGate.Step.
const (
	// Advance: the update is ahead of the last accepted one within
	// MaxCounterJump; accept it.
	Advance Verdict = iota
	// Stale: the update is not ahead (a duplicate or a late arrival within
	// ReorderWindow); drop it.
	Stale
	// Held: the counter is implausibly far from the sequence; drop it and
	// remember it, since the next one may confirm a new sequence.
	Held
	// Resync: the update continues the previously held counter: the
	// sequence restarted there. Accept it; the gate follows the new sequence.
	Resync
)

// SequenceGate orders DATA updates by counter as docs/udpstreamer.md ("Sequence
// counters") requires: an update is accepted only if its counter is ahead of the last
// accepted one by a signed 32-bit difference, which survives the uint32 wrap.
//
// A counter implausibly far from the last accepted one (more than
// MaxCounterJump ahead or ReorderWindow behind) is held back rather than
// taken as loss: a single stray datagram is dropped and the sequence goes
// on, while two such updates in a row, the second at most a few counters
// past the first, resynchronise the gate to the new sequence.
//
// The zero value is ready and accepts any first counter. Not safe for concurrent use.
type SequenceGate struct {
	last    uint32
	started bool
	held    uint32 // the last implausible counter, valid while holding
	holding bool

	Accepted    uint64 // updates accepted
	Dropped     uint64 // stale or duplicate updates dropped
	Lost        uint64 // sum of lost over accepted updates
	Implausible uint64 // updates held back for an implausible counter (Held)
	Resyncs     uint64 // times the gate followed a new sequence (Resync)
}

// Accept reports whether the update numbered counter is accepted (Step's
// verdict Advance or Resync), and then how many updates are missing before it.
func (g *SequenceGate) Accept(counter uint32) (lost uint32, ok bool) {
	lost, v := g.Step(counter)
	return lost, v == Advance || v == Resync
}

// Step classifies the update numbered counter. For Advance, lost is the
// number of updates missing between the previous accepted one and this one
// (delta-1). For Resync, lost counts the updates of the new sequence not
// delivered: the held one and any between it and this one. Stale and Held
// updates must be dropped; lost is then 0.
func (g *SequenceGate) Step(counter uint32) (lost uint32, v Verdict) {
	if !g.started {
		g.started, g.holding = true, false
		g.last = counter
		g.Accepted++
		return 0, Advance
	}
	delta := int32(counter - g.last)
	switch {
	case delta > 0 && delta <= MaxCounterJump:
		g.holding = false
		return g.accept(counter, uint32(delta)-1), Advance
	case delta <= 0 && delta >= -ReorderWindow:
		g.Dropped++
		return 0, Stale
	}
	if d := int32(counter - g.held); g.holding && d > 0 && d <= resyncStep {
		g.holding = false
		g.Resyncs++
		return g.accept(counter, uint32(d)), Resync
	}
	g.held, g.holding = counter, true
	g.Implausible++
	return 0, Held
}

func (g *SequenceGate) accept(counter, lost uint32) uint32 {
	g.last = counter
	g.Accepted++
	g.Lost += uint64(lost)
	return lost
}

// Reset forgets the last counter so the next one is accepted; call it on every
// (re)connect, since the producer restarts its counter. Statistics are kept.
func (g *SequenceGate) Reset() {
	g.started, g.holding = false, false
	g.last = 0
}
