// Package lifecycle keeps a producer's state in MARTe2's order (configured, allocated, opened, running, closed), its signal memory, and the error every call out of that order returns.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/memory"
)

// State is where a producer is in its life.
type State uint32

// The states, in order. Closed is final: a closed producer is not opened
// again; a new one (New) takes its place.
const (
	Configured State = iota // after New
	Allocated               // AllocateMemory
	Opened                  // Open: sockets bound, nothing sent
	Running                 // PrepareNextState or Start: network thread running
	Closed                  // Close
)

// Lifecycle is the state of one producer, embedded in it. The transitions
// (Allocate, Open, Prepare, Start, Close) are serialised by a mutex and
// may come from any goroutine; Ready, the check of Synchronise, is one
// atomic load and returns errors built once, so the RT thread neither
// waits nor allocates. Init it before use.
type Lifecycle struct {
	mu    sync.Mutex
	state atomic.Uint32
	name  string
	mem   *memory.Memory
	sigs  []datasource.Signal
	// stop ends the context.AfterFunc of Start; nil without one.
	stop func() bool

	notAllocated, closed error // what Ready returns, built once
}

// Init names the producer and its signals (validated).
func (l *Lifecycle) Init(name string, sigs []datasource.Signal) {
	l.name, l.sigs = name, sigs
	l.notAllocated = l.wrap("Synchronise", datasource.ErrNotAllocated)
	l.closed = l.wrap("Synchronise", datasource.ErrClosed)
}

func (l *Lifecycle) wrap(op string, err error) error {
	return fmt.Errorf("datasource %q: %s: %w", l.name, op, err)
}

// NotMade returns the error of op on a nil or zero producer of kind
// ("udpstreamer.Streamer"), wrapping datasource.ErrNotMade. It allocates:
// a producer builds Synchronise's once.
func NotMade(kind, op string) error { return fmt.Errorf("%s: %s: %w", kind, op, datasource.ErrNotMade) }

// synchroniseNotMade is Ready's error on a zero Lifecycle, built once so
// that the RT thread does not allocate for it (the producers answer a zero
// producer before they ask Ready).
var synchroniseNotMade = NotMade("datasource", "Synchronise")

// Made reports whether Init has run: not for the Lifecycle of a zero
// producer.
func (l *Lifecycle) Made() bool { return l.notAllocated != nil }

// State returns the current state.
func (l *Lifecycle) State() State { return State(l.state.Load()) }

// Memory returns the signal memory, nil before Allocate.
func (l *Lifecycle) Memory() *memory.Memory { return l.mem }

// Ready returns nil once the signal memory is allocated and until Close,
// else why Synchronise may not publish: nothing allocated yet, or closed.
// A cycle published before the start waits for the network thread, as the
// first values to send. It never allocates.
func (l *Lifecycle) Ready() error {
	switch State(l.state.Load()) {
	case Closed:
		return l.closed
	case Configured:
		if !l.Made() {
			return synchroniseNotMade
		}
		return l.notAllocated
	}
	return nil
}

// Allocate allocates the signal memory and runs alloc, which allocates the
// rest of the producer's buffers from it, once, before anything else.
//
// The errors of the producer's own work (alloc here, open, start and
// close below) are wrapped with the producer's name and the call, as the
// state errors are; that work names only what failed.
func (l *Lifecycle) Allocate(alloc func(*memory.Memory) error) error {
	if !l.Made() {
		return NotMade("datasource", "AllocateMemory")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.State() {
	case Configured:
	case Closed:
		return l.wrap("AllocateMemory", datasource.ErrClosed)
	default:
		return l.wrap("AllocateMemory", datasource.ErrAllocatedTwice)
	}
	mem := memory.New(l.sigs)
	if err := alloc(mem); err != nil {
		return l.wrap("AllocateMemory", err)
	}
	l.mem = mem
	l.state.Store(uint32(Allocated))
	return nil
}

// Buffer returns the bytes of signal i in signal memory: the
// GetSignalMemoryBuffer of every producer.
func (l *Lifecycle) Buffer(i int) ([]byte, error) {
	if !l.Made() {
		return nil, NotMade("datasource", "GetSignalMemoryBuffer")
	}
	switch l.State() {
	case Configured:
		return nil, l.wrap("GetSignalMemoryBuffer", datasource.ErrNotAllocated)
	case Closed:
		return nil, l.wrap("GetSignalMemoryBuffer", datasource.ErrClosed)
	}
	if i < 0 || i >= len(l.sigs) {
		return nil, fmt.Errorf("datasource %q: GetSignalMemoryBuffer: signal index %d out of range (%d signals): %w", l.name, i, len(l.sigs), datasource.ErrUnknownSignal)
	}
	return l.mem.Signal(i), nil
}

// check returns the error of op from the current state: op needs the
// memory allocated and nothing opened yet (from Allocated) or, with
// opened, also accepts Opened.
func (l *Lifecycle) check(op string, opened bool) error {
	switch s := l.State(); {
	case !l.Made():
		return NotMade("datasource", op)
	case s == Configured:
		return l.wrap(op, datasource.ErrNotAllocated)
	case s == Closed:
		return l.wrap(op, datasource.ErrClosed)
	case s == Running, s == Opened && !opened:
		return l.wrap(op, datasource.ErrStarted)
	}
	return nil
}

// Open runs open, which binds the producer's sockets, from Allocated; a
// failed open leaves the state as it was (open closes what it opened).
func (l *Lifecycle) Open(open func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.check("Open", false); err != nil {
		return err
	}
	if err := open(); err != nil {
		return l.wrap("Open", err)
	}
	l.state.Store(uint32(Opened))
	return nil
}

// Prepare is PrepareNextState: from Allocated it runs open and then
// start (which starts the network thread), from Opened only start. A
// failure leaves the state as it was before the call: start undoes its
// own work, and when start fails after Prepare's own open, unopen closes
// what open opened.
func (l *Lifecycle) Prepare(open, start func() error, unopen func()) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.check("PrepareNextState", true); err != nil {
		return err
	}
	opened := false
	if l.State() == Allocated {
		if err := open(); err != nil {
			return l.wrap("PrepareNextState", err)
		}
		opened = true
	}
	if err := start(); err != nil {
		if opened {
			unopen()
		}
		return l.wrap("PrepareNextState", err)
	}
	l.state.Store(uint32(Running))
	return nil
}

// Start is the Go-shaped start of a producer: allocate (unless the memory
// is allocated already), then prepare, then close when ctx is done. It
// refuses a nil ctx and one already done, and starts nothing then.
func (l *Lifecycle) Start(ctx context.Context, allocate, prepare, close func() error) error {
	if !l.Made() {
		return NotMade("datasource", "Start")
	}
	if ctx == nil {
		return l.wrap("Start", errors.New("nil context (use context.Background() for a producer stopped only by Close)"))
	}
	if err := ctx.Err(); err != nil {
		return l.wrap("Start", err)
	}
	switch l.State() {
	case Closed:
		return l.wrap("Start", datasource.ErrClosed)
	case Running:
		return l.wrap("Start", datasource.ErrStarted)
	case Configured:
		// A Start racing with this one may have allocated meanwhile: then
		// prepare says whether it also started (ErrStarted), rather than
		// this Start blaming an AllocateMemory its caller never made.
		if err := allocate(); err != nil && !errors.Is(err, datasource.ErrAllocatedTwice) {
			return err
		}
	}
	if err := prepare(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.State() == Running && ctx.Done() != nil {
		l.stop = context.AfterFunc(ctx, func() { _ = close() })
	}
	return nil
}

// Close moves to Closed and runs close with the state it leaves, which
// releases whatever that state holds (threads, sockets, metrics). It
// returns close's error; once closed it does nothing and returns nil.
// Ready sees Closed before close runs, so a Synchronise racing with Close
// returns the closed error rather than publishing into a stopping
// producer.
func (l *Lifecycle) Close(close func(prev State) error) error {
	if !l.Made() {
		return NotMade("datasource", "Close")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	prev := l.State()
	if prev == Closed {
		return nil
	}
	l.state.Store(uint32(Closed))
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
	if err := close(prev); err != nil {
		return l.wrap("Close", err)
	}
	return nil
}
