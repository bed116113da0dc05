package flatudp

// selector decides which cycles the sender thread sends. It sees every
// cycle once, in order 0, 1, 2, ..., and answers with a contiguous range of
// cycles to send, each at most once and in increasing order over the whole
// stream.
//
// RealTimeThread (every): each cycle alone.
//
// IndependentThread: cycle k is sent iff some cycle t with a non-zero
// Trigger has t-pre ≤ k ≤ t+post. When triggered cycle t arrives the
// selector answers [max(sent, t-pre), t+1): the pre-trigger cycles not
// sent yet (none before cycle 0) and t itself, and it opens the
// post-trigger window up to t+post. A cycle inside that window is sent when
// it arrives. Overlapping windows and consecutive triggers therefore send
// each cycle once. The caller must keep the last pre cycles readable (the
// ring does not release them) until the next cycle has been seen.
type selector struct {
	every     bool
	pre, post uint64
	sent      uint64 // every cycle below was sent or passed over for good
	postEnd   uint64 // cycles below are inside a post-trigger window
}

// next takes cycle seq, whose Trigger is non-zero iff trig, and returns the
// cycles [from, to) to send now; from == to sends nothing. Calls must give
// seq = 0, 1, 2, ... in order.
func (s *selector) next(seq uint64, trig bool) (from, to uint64) {
	switch {
	case s.every:
		from = seq
	case trig:
		from = max(seq-min(seq, s.pre), s.sent)
		s.postEnd = max(s.postEnd, seq+1+s.post)
	case seq < s.postEnd:
		from = seq
	default:
		return seq, seq
	}
	s.sent = seq + 1
	return from, seq + 1
}
