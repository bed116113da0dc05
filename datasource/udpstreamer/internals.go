package udpstreamer

import (
	"net/netip"
	"time"
)

// Internals returns what streamerd's daemon and tools use of a Streamer
// beyond the DataSource contract: its Open step, the snapshot of /status and the line of -describe, the instants of
// skipped cycles and the network thread's id (forensics), the times from
// Synchronise to send (timings), the in-process tap (the web scope), the
// ring's state and the session's client (a replay's pacing). A program finds each by asserting on the result the
// interface it needs; they follow the daemon, not a compatibility
// promise, and an embedder has no need of them.
// Nil for a Streamer New did not make.
func (s *Streamer) Internals() any {
	if !s.made() {
		return nil
	}
	return (*internals)(s)
}

// internals is a Streamer seen by the daemon (Internals).
type internals Streamer

// Open is the daemon's step between AllocateMemory and PrepareNextState:
// it binds and configures every socket and sends nothing, so an
// application that opens every producer (and its own listeners) before it
// starts any has sent nothing when a start fails (a port already taken).
// PrepareNextState then starts the network thread; it opens the sockets
// itself when Open was not called. Close closes what Open opened. Open
// before AllocateMemory returns datasource.ErrNotAllocated, twice or after
// the start datasource.ErrStarted.
func (x *internals) Open() error { return (*Streamer)(x).openStep() }

// Describe returns one line on the datagrams for a layout listing
// (streamerd -describe); valid after AllocateMemory.
func (x *internals) Describe() string { return (*Streamer)(x).describe() }

// StatusReport returns a snapshot to encode as JSON (docs/status.md
// names every field), for a program that lists producers of every class
// together (streamerd's /status).
func (x *internals) StatusReport() any { return (*Streamer)(x).snapshot() }

// Client returns the address of the client holding the session, the zero
// AddrPort while none does: a program that streams only while someone
// listens waits for it to be valid. Any goroutine.
func (x *internals) Client() netip.AddrPort { return (*Streamer)(x).sessionClient() }

// DrainSkips copies into dst the instants (cpu.Now nanoseconds) of the
// cycles skipped since the last call (a lock timeout, or a cycle
// overwritten because the network thread had not taken the ring's depth of
// cycles), oldest first, and returns how many it copied and how many it
// lost (the Streamer keeps the last rtsync.StampRows). One goroutine at a
// time may call it; it never allocates. A monitor explains the skips from
// how the kernel treated the network thread (NetworkThreadID).
func (x *internals) DrainSkips(dst []int64) (n int, lost uint64) { return x.skips.Drain(dst) }

// NetworkThreadID returns the OS thread id of the network thread (see
// netthread.Thread.ThreadID), 0 before PrepareNextState started it.
// Call it from the goroutine that started the Streamer, or after it.
func (x *internals) NetworkThreadID() int {
	if x.thread == nil {
		return 0
	}
	return x.thread.ThreadID()
}

// HandOffCovers returns the time the cycles of the hand-off ring last at
// the period it was sized for.
func (x *internals) HandOffCovers() time.Duration { return x.handOff.Covers }

// DrainSendLatencies copies into dst, oldest first, as many as fit of the
// times from Synchronise to the return of the send of each update sent
// since the last call, in nanoseconds, and returns how many it copied and
// how many were lost because the caller came too late (the network thread
// never waits for it). One goroutine at a time may call it; it never
// allocates.
func (x *internals) DrainSendLatencies(dst []int64) (n int, lost uint64) {
	return x.sendLat.Drain(dst)
}

// Waiting returns the cycles published by Synchronise that the network
// thread has not taken yet (at most the ring's depth): a caller that must
// not overwrite cycles (a replay sent as fast as it goes) publishes only
// while it is below that depth. Any goroutine; it takes the FastLock.
func (x *internals) Waiting() int { return (*Streamer)(x).waiting() }

// SynchroniseAfterGap is Synchronise for a cycle that follows lost updates:
// the network thread advances the DATA counter by lost before it sends
// this cycle, so a client counts lost updates missing there (Update.Lost)
// and breaks its traces, as after a loss on the network. A replay uses it
// to keep the gaps of a recording. Same contract and cost as Synchronise.
func (x *internals) SynchroniseAfterGap(lost uint32) error {
	return (*Streamer)(x).synchroniseAfterGap(lost)
}

// OpenTap opens the in-process tap (after AllocateMemory or Start), one at
// a time: the result has ConfigPayload() []byte, Next(timeout
// time.Duration) (payload []byte, missed uint64, err error) and Close().
func (x *internals) OpenTap() (any, error) {
	t, err := (*Streamer)(x).openTap()
	if err != nil {
		return nil, err
	}
	return t, nil
}

// PayloadSize returns the size of one DATA payload, and FragmentCount the
// number of datagrams it takes (valid after AllocateMemory).
func (x *internals) PayloadSize() int   { return x.dataLayout.Payload }
func (x *internals) FragmentCount() int { return x.dataLayout.Fragments }
