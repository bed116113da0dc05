// Package netthread is the network thread of a producer: a pinned OS thread (MARTe2's SingleThreadService), the names of the send methods it hands datagrams to the kernel with, and socket buffer sizing.
//
// A Thread is a goroutine locked to a fresh OS thread, pinned to its own
// CPUMask and optionally SCHED_FIFO, that runs a body until Stop. The body
// watches a stop channel; Stop is prompt as long as the body never blocks
// for long without watching it: block with a timeout, or set Config.Wake to
// unblock it (for example an rtsync.EventSem's Post). Stop gives up on a
// body still running after 5 s and says so.
//
// On Linux the OS thread takes the first 15 bytes of Config.Name as its
// name, which `top -H` and /proc/<pid>/task/<tid>/comm show.
//
// The thread never calls runtime.UnlockOSThread: when the body returns the
// Go runtime destroys the OS thread, so its affinity and priority cannot
// leak to other goroutines.
//
// A producer's body hands the datagrams of one update to the kernel in as
// few system calls as it allows, by the SendMethod its configuration
// names (GSO, sendmmsg or sendto; the producers' own send path implements
// them), and SetBuffers sizes its socket's buffers, read back and logged
// once.
package netthread

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
)

// Config describes a service thread.
type Config struct {
	Name     string
	CPUMask  cpu.Mask // CPUs the thread may run on; 0: no pinning
	Priority int      // 0: normal scheduling; 1..99: SCHED_FIFO (cpu.ValidatePriority)

	// Wake, if set, is called by Stop after the stop channel is closed, to
	// unblock a body waiting on something else (typically sem.Post).
	Wake func()
}

// Thread is a running service thread. Its methods are safe for concurrent
// use.
type Thread struct {
	cfg  Config
	stop chan struct{}
	done <-chan struct{}
	once sync.Once
	tid  int // OS thread id (cpu.StartThread)
}

// Start runs body(stop) on a new OS thread pinned to cfg.CPUMask with
// cfg.Priority (see cpu.StartThread). It returns once the thread is set up,
// or the pinning or priority error (then body never runs). body must return
// soon after stop is closed.
func Start(cfg Config, body func(stop <-chan struct{})) (*Thread, error) {
	if body == nil {
		return nil, fmt.Errorf("netthread: %s: nil body", cfg.Name)
	}
	t := &Thread{cfg: cfg, stop: make(chan struct{})}
	tid, done, err := cpu.StartThread(cfg.CPUMask, cfg.Priority, func() {
		if cfg.Name != "" {
			nameThread(cfg.Name)
		}
		body(t.stop)
	})
	if err != nil {
		return nil, fmt.Errorf("netthread: %s: %w", cfg.Name, err)
	}
	t.tid, t.done = tid, done
	return t, nil
}

// errNotStarted is Stop's error on a nil or zero Thread (such as the nil a
// failed Start returns, its error ignored).
var errNotStarted = errors.New("netthread: Stop of a nil or zero Thread (make one with Start, and check its error)")

// stopTimeout bounds Stop's wait for the body: far beyond what a body that
// watches its stop channel takes (a producer's waits end within a second),
// so reaching it means the body is blocked. A variable for the tests.
var stopTimeout = 5 * time.Second

// Stop closes the stop channel, calls Config.Wake, and waits for the body
// to return, at most 5 s: a body still running then is blocked, and Stop
// returns an error saying so (the thread goes on; a later Stop waits
// again). It returns nil once the body has returned (errNotStarted for a
// nil or zero Thread), so a second Stop is harmless.
func (t *Thread) Stop() error {
	if t == nil || t.done == nil {
		return errNotStarted
	}
	t.once.Do(func() {
		close(t.stop)
		if t.cfg.Wake != nil {
			t.cfg.Wake()
		}
	})
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-t.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("netthread: %s: the thread did not return within %v of Stop: it is blocked (Stop may be called again)", t.cfg.Name, stopTimeout)
	}
}

// Name returns the configured name.
func (t *Thread) name() string { return t.cfg.Name }
