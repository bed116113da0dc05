package flatudp

import (
	"net/netip"
	"time"
)

// Internals returns what streamerd's daemon uses of a Sender beyond the
// DataSource contract: its Open step, the snapshot of /status and the line of -describe, the instants of refused
// cycles and the sender thread's id (forensics), the time the ring's
// queue covers, the socket's address. A program
// finds each by asserting on the result the interface it needs; they
// follow the daemon, not a compatibility promise, and an embedder has no
// need of them.
// Nil for a Sender New did not make.
func (s *Sender) Internals() any {
	if !s.made() {
		return nil
	}
	return (*internals)(s)
}

// internals is a Sender seen by the daemon (Internals).
type internals Sender

// Open is the daemon's step between AllocateMemory and PrepareNextState:
// it binds and configures every socket and sends nothing, so an
// application that opens every producer (and its own listeners) before it
// starts any has sent nothing when a start fails (a port already taken).
// PrepareNextState then starts the network thread; it opens the sockets
// itself when Open was not called. Close closes what Open opened. Open
// before AllocateMemory returns datasource.ErrNotAllocated, twice or after
// the start datasource.ErrStarted.
func (x *internals) Open() error { return (*Sender)(x).openStep() }

// Describe returns one line on the datagrams for a layout listing
// (streamerd -describe); valid after AllocateMemory.
func (x *internals) Describe() string { return (*Sender)(x).describe() }

// StatusReport returns a snapshot to encode as JSON (docs/status.md
// names every field), for a program that lists producers of every class
// together (streamerd's /status).
func (x *internals) StatusReport() any { return (*Sender)(x).snapshot() }

// LocalAddr returns the address the sending socket is bound to (valid
// after Open or PrepareNextState).
func (x *internals) LocalAddr() netip.AddrPort { return (*Sender)(x).localAddr() }

// DrainSkips copies into dst the instants (cpu.Now nanoseconds) of the
// cycles refused since the last call because the ring was full (the sender
// thread NumberOfBuffers cycles behind, overflows_total), oldest first, and
// returns how many it copied and how many it lost (the Sender keeps the
// last rtsync.StampRows). One goroutine at a time may call it; it never
// allocates. A monitor explains them from how the kernel treated the
// sender thread (NetworkThreadID).
func (x *internals) DrainSkips(dst []int64) (n int, lost uint64) { return x.skips.Drain(dst) }

// NetworkThreadID returns the OS thread id of the sender thread (see
// netthread.Thread.ThreadID), 0 before PrepareNextState started it. Call
// it from the goroutine that started the Sender, or after it.
func (x *internals) NetworkThreadID() int {
	if x.thread == nil {
		return 0
	}
	return x.thread.ThreadID()
}

// HandOffCovers returns the time the part of the ring that queues cycles
// for the sender thread (beyond the pre-trigger history) lasts at the
// period it was sized for.
func (x *internals) HandOffCovers() time.Duration { return x.queue.Covers }
