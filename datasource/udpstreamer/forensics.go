package udpstreamer

// DrainSkips copies into dst the instants (cpu.Now nanoseconds) of the
// cycles skipped since the last call (a lock timeout, or a cycle
// overwritten because the network thread had not taken HandOffDepth
// cycles), oldest first, and returns how many it copied and how many it
// lost (the Streamer keeps the last rtsync.StampRows). One goroutine at a
// time may call it; it never allocates. A monitor explains the skips from
// how the kernel treated the network thread (NetworkThreadID).
func (s *Streamer) DrainSkips(dst []int64) (n int, lost uint64) { return s.skips.Drain(dst) }

// NetworkThreadID returns the OS thread id of the network thread (see
// netthread.Thread.ThreadID), 0 before PrepareNextState started it.
// Call it from the goroutine that started the Streamer, or after it.
func (s *Streamer) NetworkThreadID() int {
	if s.thread == nil {
		return 0
	}
	return s.thread.ThreadID()
}
