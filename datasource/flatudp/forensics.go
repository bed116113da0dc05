package flatudp

// DrainSkips copies into dst the instants (cpu.Now nanoseconds) of the
// cycles refused since the last call because the ring was full (the sender
// thread NumberOfBuffers cycles behind, overflows_total), oldest first, and
// returns how many it copied and how many it lost (the Sender keeps the
// last rtsync.StampRows). One goroutine at a time may call it; it never
// allocates. A monitor explains them from how the kernel treated the
// sender thread (NetworkThreadID).
func (s *Sender) DrainSkips(dst []int64) (n int, lost uint64) { return s.skips.Drain(dst) }

// NetworkThreadID returns the OS thread id of the sender thread (see
// netthread.Thread.ThreadID), 0 before PrepareNextState started it. Call
// it from the goroutine that started the Sender, or after it.
func (s *Sender) NetworkThreadID() int {
	if s.thread == nil {
		return 0
	}
	return s.thread.ThreadID()
}
