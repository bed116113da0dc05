// Package netthread runs a service loop on its own pinned OS thread, MARTe2's SingleThreadService with an EmbeddedServiceMethodBinderI.
//
// A Thread is a goroutine locked to a fresh OS thread, pinned to its own
// CPUMask and optionally SCHED_FIFO, that runs a body until Stop. The body
// is either a function that watches a stop channel (Start) or a Loop whose
// Execute is called repeatedly (StartLoop). Stop is prompt as long as the
// body never blocks for long without watching stop: block with a timeout,
// or set Config.Wake to unblock it (for example an rtsync.EventSem.Post).
//
// The thread never calls runtime.UnlockOSThread: when the body returns the
// Go runtime destroys the OS thread, so its affinity and priority cannot
// leak to other goroutines.
package netthread

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/streamerd/streamerd/rt/cpu"
)

// Config describes a service thread.
type Config struct {
	Name     string
	CPUMask  cpu.Mask // CPUs the thread may run on; 0: no pinning
	Priority int      // SCHED_FIFO priority 1..99; 0: normal scheduling

	// Wake, if set, is called by Stop after the stop channel is closed, to
	// unblock a body waiting on something else (typically sem.Post).
	Wake func()
}

// Loop is a service body run as repeated Execute calls. Each call should
// return within a bounded time (wait with a timeout) so that Stop is seen.
// An error is counted (Errors, LastError) and the loop goes on, as MARTe2's
// service does.
type Loop interface {
	Execute() error
}

// LoopFunc adapts a function to Loop.
type LoopFunc func() error

// Execute calls f.
func (f LoopFunc) Execute() error { return f() }

// ErrStopped is returned by Stop on a thread already stopped.
var ErrStopped = errors.New("netthread: already stopped")

// Thread is a running service thread. Its methods are safe for concurrent
// use.
type Thread struct {
	cfg      Config
	stop     chan struct{}
	stopping atomic.Bool
	done     chan struct{}
	once     sync.Once
	affinity cpu.Mask

	errs    atomic.Uint64
	errMu   sync.Mutex
	lastErr error
}

// Start locks a new goroutine to its OS thread, pins it and sets its
// priority, then runs body(stop) on it. It returns once the thread is set
// up, or the pinning or priority error (then body never runs). body must
// return soon after stop is closed.
func Start(cfg Config, body func(stop <-chan struct{})) (*Thread, error) {
	if cfg.Priority < 0 || cfg.Priority > 99 {
		return nil, fmt.Errorf("netthread: %s: Priority %d out of range 0..99", cfg.Name, cfg.Priority)
	}
	t := &Thread{cfg: cfg, stop: make(chan struct{}), done: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		defer close(t.done)
		runtime.LockOSThread() // never unlocked: the thread dies with us
		if err := cpu.PinCurrentThread(cfg.CPUMask); err != nil {
			ready <- err
			return
		}
		t.affinity, _ = cpu.CurrentThreadAffinity()
		if cfg.Priority > 0 {
			if err := cpu.SetFIFOPriority(cfg.Priority); err != nil {
				ready <- err
				return
			}
		}
		ready <- nil
		body(t.stop)
	}()
	if err := <-ready; err != nil {
		<-t.done
		return nil, fmt.Errorf("netthread: %s: %w", cfg.Name, err)
	}
	return t, nil
}

// StartLoop is Start with a body that calls l.Execute until Stop.
func StartLoop(cfg Config, l Loop) (*Thread, error) {
	var t *Thread
	started := make(chan struct{})
	t, err := Start(cfg, func(stop <-chan struct{}) {
		<-started
		for !t.stopping.Load() {
			if err := l.Execute(); err != nil {
				t.recordErr(err)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	close(started)
	return t, nil
}

func (t *Thread) recordErr(err error) {
	t.errs.Add(1)
	t.errMu.Lock()
	t.lastErr = err
	t.errMu.Unlock()
}

// Stop closes the stop channel, calls Config.Wake, and waits for the body to
// return. Later calls return ErrStopped.
func (t *Thread) Stop() error {
	err := ErrStopped
	t.once.Do(func() {
		err = nil
		t.stopping.Store(true)
		close(t.stop)
		if t.cfg.Wake != nil {
			t.cfg.Wake()
		}
	})
	<-t.done
	return err
}

// Stopping reports whether Stop has been called; bodies may poll it instead
// of the channel.
func (t *Thread) Stopping() bool { return t.stopping.Load() }

// Done is closed when the body has returned.
func (t *Thread) Done() <-chan struct{} { return t.done }

// Name returns the configured name.
func (t *Thread) Name() string { return t.cfg.Name }

// Affinity returns the CPU mask read back inside the thread at its start.
func (t *Thread) Affinity() cpu.Mask { return t.affinity }

// Errors returns how many Execute calls of a Loop failed.
func (t *Thread) Errors() uint64 { return t.errs.Load() }

// LastError returns the most recent Execute error, or nil.
func (t *Thread) LastError() error {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.lastErr
}
