package wire

// SequenceGate orders DATA updates by counter as docs/udpstreamer.md ("Sequence
// counters") requires: an update is accepted only if its counter is ahead of the last
// accepted one by a signed 32-bit difference, which survives the uint32 wrap.
// The zero value is ready and accepts any first counter. Not safe for concurrent use.
type SequenceGate struct {
	last    uint32
	started bool

	Accepted uint64 // updates accepted
	Dropped  uint64 // stale or duplicate updates dropped
	Lost     uint64 // sum of lost over accepted updates
}

// Accept reports whether the update numbered counter advances the sequence. If it
// does, lost is the number of updates missing between the previous accepted one
// and this one (delta-1); if not (delta <= 0: stale or duplicate), the update must
// be dropped and the gate is unchanged apart from the Dropped count.
func (g *SequenceGate) Accept(counter uint32) (lost uint32, ok bool) {
	if !g.started {
		g.started = true
		g.last = counter
		g.Accepted++
		return 0, true
	}
	delta := int32(counter - g.last)
	if delta <= 0 {
		g.Dropped++
		return 0, false
	}
	g.last = counter
	lost = uint32(delta) - 1
	g.Accepted++
	g.Lost += uint64(lost)
	return lost, true
}

// Reset forgets the last counter so the next one is accepted; call it on every
// (re)connect, since the producer restarts its counter. Statistics are kept.
func (g *SequenceGate) Reset() {
	g.started = false
	g.last = 0
}
