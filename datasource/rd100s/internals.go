package rd100s

import "net/netip"

// Internals returns what streamerd's daemon uses of an Encoder beyond the
// DataSource contract: its Open step, the snapshot of /status and the line of -describe, the socket's address, a
// degradation read back for the operator. A program finds each by
// asserting on the result the interface it needs; they follow the daemon,
// not a compatibility promise, and an embedder has no need of them.
// Nil for an Encoder New did not make.
func (e *Encoder) Internals() any {
	if !e.made() {
		return nil
	}
	return (*internals)(e)
}

// internals is an Encoder seen by the daemon (Internals).
type internals Encoder

// Open is the daemon's step between AllocateMemory and PrepareNextState:
// it binds and configures every socket and sends nothing, so an
// application that opens every producer (and its own listeners) before it
// starts any has sent nothing when a start fails (a port already taken).
// PrepareNextState then starts the network thread; it opens the sockets
// itself when Open was not called. Close closes what Open opened. Open
// before AllocateMemory returns datasource.ErrNotAllocated, twice or after
// the start datasource.ErrStarted.
func (x *internals) Open() error { return (*Encoder)(x).openStep() }

// Describe returns one line on the datagrams for a layout listing
// (streamerd -describe); valid after AllocateMemory.
func (x *internals) Describe() string { return (*Encoder)(x).describe() }

// StatusReport returns a snapshot to encode as JSON (docs/status.md
// names every field), for a program that lists producers of every class
// together (streamerd's /status).
func (x *internals) StatusReport() any { return (*Encoder)(x).snapshot() }

// LocalAddr returns the address the socket is bound to: valid after Open,
// PrepareNextState or Start (the zero AddrPort before).
func (x *internals) LocalAddr() netip.AddrPort { return (*Encoder)(x).localAddr() }

// Degradation returns the value of degradation key as Set takes it, as
// the encoder applies it now: for burst_loss_ms the time left of a burst
// in progress, for seq_jump a jump not applied yet. Any goroutine.
func (x *internals) Degradation(key string) (string, error) {
	d := (*Encoder)(x).state()
	return d.get(key)
}
