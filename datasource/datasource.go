package datasource

import "errors"

// DataSource is the MARTe2 DataSourceI contract for an output datasource,
// the interface brokers and the streamerd daemon drive every producer
// through.
//
// Configuration happens in the producer's constructor. AllocateMemory,
// GetSignalMemoryBuffer and PrepareNextState are called in that order from
// the goroutine that builds the application. Synchronise is called from
// the RT thread only, once per cycle, after the broker has copied the GAM
// outputs; it must not allocate, log, block on the network or make a
// system call other than waking the network thread. Close may be called
// from any goroutine, in any state; it stops the network thread, releases
// the sockets and unregisters the metrics, and a second Close does
// nothing. After Close every other call returns ErrClosed: a closed
// producer is replaced by a new one, never restarted.
//
// A call out of this order returns an error, never panics:
// ErrNotAllocated, ErrAllocatedTwice, ErrStarted, ErrClosed or
// ErrUnknownSignal, wrapped with the datasource's name.
// docs/embedding.md gives the whole table, and the Go-shaped path every
// producer of this module offers beside the contract: Start(ctx), which
// allocates, opens and starts, and closes when ctx is done. Every producer
// also offers Internals() any, what streamerd's daemon uses beyond the
// contract (a step that binds the sockets before the start, its /status
// snapshot, its -describe line...), which a program listing producers of
// every class finds by type assertion.
type DataSource interface {
	// Name returns the datasource name used in logs, metrics and errors.
	Name() string
	// Signals returns the configured signals in declaration order. The
	// caller must not modify the slice.
	Signals() []Signal
	// AllocateMemory allocates the zeroed signal memory.
	AllocateMemory() error
	// GetSignalMemoryBuffer returns the bytes of signal i in signal memory,
	// as MARTe2's GetSignalMemoryBuffer: an error before AllocateMemory,
	// after Close, or for an index out of range.
	GetSignalMemoryBuffer(i int) ([]byte, error)
	// PrepareNextState opens the sockets and starts the network thread.
	PrepareNextState() error
	// Synchronise publishes the signal memory to the network thread.
	Synchronise() error
	// Close stops the network thread, closes the sockets and unregisters
	// the metrics; later calls do nothing.
	Close() error
}

// The errors of the lifecycle and of access by name. A producer returns
// them wrapped with its name and the call, "datasource \"S\":
// PrepareNextState: already opened or started"; match them with errors.Is.
// docs/embedding.md tabulates which call returns which in which state.
var (
	// ErrNotAllocated: the call needs signal memory, and neither
	// AllocateMemory nor Start has allocated it.
	ErrNotAllocated = errors.New("signal memory not allocated (call AllocateMemory or Start first)")
	// ErrAllocatedTwice: AllocateMemory on memory already allocated.
	ErrAllocatedTwice = errors.New("AllocateMemory called twice")
	// ErrStarted: Open, PrepareNextState or Start on a producer already
	// opened or started.
	ErrStarted = errors.New("already opened or started")
	// ErrClosed: any call but Close after Close. A closed producer stays
	// closed: make a new one (New) to stream again.
	ErrClosed = errors.New("closed")
	// ErrUnknownSignal: a signal name (or index) the datasource does not
	// have.
	ErrUnknownSignal = errors.New("no such signal")
	// ErrSignalMismatch: a Go slice bound to a signal whose element type
	// or element count differs from the signal's.
	ErrSignalMismatch = errors.New("element type or count differs from the signal's")
	// ErrCycleSkipped: Synchronise handed this cycle to no one, because
	// the network thread is behind: it held the lock it shares with
	// Synchronise too long (RD100S; a UDPStreamer twice in a row, keeping
	// the first such cycle for the next), or the ring was full (FlatUDP in
	// RealTimeThread mode). The cycle is counted in the producer's metrics
	// and the loop may go on. Returned without allocating.
	ErrCycleSkipped = errors.New("cycle skipped: the network thread is behind")
	// ErrNotMade: a call on a nil or zero producer, one its New did not
	// make (such as the nil a failed New returns, its error ignored).
	// Every method returns it, or its zero value.
	ErrNotMade = errors.New("nil or zero producer (make one with its New, and check its error)")
)
