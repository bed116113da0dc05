package datasource

import "errors"

// DataSource is the MARTe2 DataSourceI contract for an output datasource.
//
// Configuration happens in the producer's constructor. AllocateMemory,
// GetSignalMemoryBuffer and PrepareNextState are called once, in that order,
// from the goroutine that builds the application. Synchronise is called from
// the RT thread only, once per cycle, after the broker has copied the GAM
// outputs; it must not allocate, log, block on the network or make a syscall
// other than waking the network thread. Close may be called from any goroutine
// once; it stops the network thread and releases the sockets.
//
// A producer may also be an Opener, whose sockets open before it starts.
//
// A producer called out of this order returns ErrAllocatedTwice,
// ErrNotAllocated or ErrPreparedTwice. Beside
// the contract, every producer of this module offers StatusReport() any (a
// JSON-friendly snapshot) and Describe() string (a line on its datagrams),
// which a program listing producers of every class finds by type assertion.
type DataSource interface {
	// Name returns the datasource name used in logs, metrics and errors.
	Name() string
	// Signals returns the configured signals in declaration order. The
	// caller must not modify the slice.
	Signals() []Signal
	// AllocateMemory allocates the zeroed signal memory.
	AllocateMemory() error
	// GetSignalMemoryBuffer returns the bytes of signal i in signal memory.
	GetSignalMemoryBuffer(i int) []byte
	// PrepareNextState opens the sockets and starts the network thread.
	PrepareNextState() error
	// Synchronise publishes the signal memory to the network thread.
	Synchronise() error
	// Close stops the network thread and closes the sockets.
	Close() error
}

// Opener is a DataSource that opens its sockets in a step of its own. Open,
// called once between AllocateMemory and PrepareNextState from the same
// goroutine, binds and configures every socket and sends nothing;
// PrepareNextState then starts the network thread (it opens the sockets
// itself when Open was not called). Close closes what Open opened, whether
// or not PrepareNextState ran. An application opens every datasource and
// its own listeners before it prepares any, so a start that fails (a port
// already taken) has sent nothing. Every producer of this module is an
// Opener.
type Opener interface {
	DataSource
	Open() error
}

// The lifecycle errors a producer returns, wrapped with its name, when the
// DataSource methods are called out of MARTe2's order; match them with
// errors.Is.
var (
	ErrAllocatedTwice = errors.New("AllocateMemory called twice")
	ErrNotAllocated   = errors.New("PrepareNextState before AllocateMemory")
	ErrStarted  = errors.New("PrepareNextState called twice")
)
