package cpu

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
)

var (
	// errAffinityMismatch is returned (wrapped) by PinCurrentThread when the
	// affinity read back differs from the one requested (for example when a
	// cgroup cpuset excludes some of the CPUs).
	errAffinityMismatch = errors.New("cpu: affinity read back differs from the requested mask")

	// ErrNotSupported is returned (wrapped) on systems other than Linux by
	// the functions that need Linux: pinning to a non-zero Mask, reading
	// the affinity, SCHED_FIFO, mlockall and the PM QoS wake-up latency.
	ErrNotSupported = errors.New("cpu: not supported on " + runtime.GOOS)
)

// MaxPriority is the highest SCHED_FIFO priority.
const MaxPriority = 99

// ValidatePriority checks a thread's priority, the one rule behind every
// Priority setting (rt.Config, netthread.Config, each producer's
// Priority, StartThread): 0 leaves the thread under normal scheduling,
// 1..MaxPriority runs it SCHED_FIFO at that priority. The error states
// the rule and the value, without a prefix, for the caller to name its
// setting.
func ValidatePriority(prio int) error {
	if prio < 0 || prio > MaxPriority {
		return fmt.Errorf("must be 0 (normal scheduling) or 1..%d (SCHED_FIFO), got %d", MaxPriority, prio)
	}
	return nil
}

// checkFIFO checks the priority SetFIFOPriority takes: 1..MaxPriority.
func checkFIFO(prio int) error {
	if prio == 0 || ValidatePriority(prio) != nil {
		return fmt.Errorf("cpu: SCHED_FIFO priority %d out of range 1..%d", prio, MaxPriority)
	}
	return nil
}

// OnlineMask returns the CPUs the calling thread may run on now
// (sched_getaffinity), which on an unpinned thread is the set usable by the
// process; on a thread PinCurrentThread pinned, its mask. It does not
// allocate. Off Linux it returns ErrNotSupported.
func OnlineMask() (Mask, error) { return currentThreadAffinity() }

// StartThread runs body on a new goroutine locked to its own OS thread,
// pinned to mask (0: not pinned) and, if priority is above 0, in SCHED_FIFO
// at that priority (1 to 99). It returns once the thread is set up, with
// its OS thread id (gettid: the TID that names it under /proc/self/task,
// what a monitor needs to read how the kernel treats it; 0 off Linux) and
// a channel closed when body has returned. If pinning or the priority
// fails, body never runs, the goroutine has ended by the time StartThread
// returns, and the error says why.
//
// The thread is never the process's main thread, whose name, affinity and
// policy are the process's, and the goroutine never calls
// runtime.UnlockOSThread: when body returns, the Go runtime destroys the
// OS thread, so its affinity and priority never leak to other goroutines.
//
// While the thread runs, GOMAXPROCS is one more than it was (see
// addProc): the thread has a P of its own.
func StartThread(mask Mask, priority int, body func()) (tid int, done <-chan struct{}, err error) {
	if body == nil {
		return 0, nil, errors.New("cpu: StartThread: nil body")
	}
	if err := ValidatePriority(priority); err != nil {
		return 0, nil, fmt.Errorf("cpu: priority: %w", err)
	}
	finished := make(chan struct{})
	ready := make(chan error, 1)
	addProc(1)
	goLocked(func() {
		defer close(finished)
		defer addProc(-1)
		if err := setUpThread(mask, priority); err != nil {
			ready <- err
			return
		}
		tid = ThreadID()
		ready <- nil
		body()
	})
	if err := <-ready; err != nil {
		<-finished
		return 0, nil, err
	}
	return tid, finished, nil
}

// goLocked runs f on a new goroutine locked to an OS thread other than
// the process's main thread, and never unlocks it. The main thread's name,
// affinity and policy are the process's (ps, taskset -p, chrt -p), and the
// runtime keeps it when a goroutine locked to it returns: a goroutine that
// finds itself there hands f to another one, which cannot run on the main
// thread while it holds it, and lets the main thread go once that one has
// a thread of its own.
func goLocked(f func()) {
	go func() {
		runtime.LockOSThread()
		if ThreadID() != os.Getpid() { // not the main thread
			f()
			return
		}
		moved := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(moved)
			f()
		}()
		<-moved
		runtime.UnlockOSThread()
	}()
}

// procs counts the threads StartThread runs, and base is GOMAXPROCS
// before the first of them.
var procs struct {
	sync.Mutex
	n, base int
}

// addProc adds d to the threads running and sets GOMAXPROCS to its value
// before the first one plus their number. A locked thread that blocks in
// a system call (the RT thread's sleep, a network thread's futex wait)
// keeps its P until the runtime's monitor takes it back, which can take
// 10 ms when the process is quiet; meanwhile a goroutine made runnable,
// or the locked thread itself when it wakes after its P was taken, waits
// for a free P. With as many Ps as CPUs, two such threads on a 2-CPU
// machine stalled each other and the rest for 10 to 20 ms at a time; one
// more P per locked thread leaves the other goroutines the CPUs' worth
// they had. Changing GOMAXPROCS stops the world briefly (tens of µs), at
// thread start and stop only. GOMAXPROCS in the environment wins: then
// nothing changes.
func addProc(d int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	procs.Lock()
	defer procs.Unlock()
	if procs.n == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.n += d
	runtime.GOMAXPROCS(procs.base + procs.n)
}

// setUpThread pins the calling (locked) thread and sets its priority.
func setUpThread(mask Mask, priority int) error {
	if err := PinCurrentThread(mask); err != nil {
		return err
	}
	if priority > 0 {
		return setFIFOPriority(priority)
	}
	return nil
}
