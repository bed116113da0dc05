package rt

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/rt/rtsync"
)

// Stats is a consistent snapshot of an RT thread's counts. Its timings
// (cycle time, wake-up lateness, execution times) are Config.Monitor's to
// keep: the thread hands them over every cycle and keeps none.
type Stats struct {
	Running bool

	Cycles        uint64 // cycles executed
	Overruns      uint64 // cycles whose work ended after the next deadline
	MissedPeriods uint64 // periods skipped before executed cycles; the Counter signal is Cycles + MissedPeriods
	Failures      uint64 // failed step executions, all steps
	Yields        uint64 // times the thread gave its Go P back to the scheduler between cycles (see the package's Scheduling section); each is at most one voluntary context switch besides its sleeps

	Steps []StepStats // GAMs then brokers, in execution order; every step runs once per cycle

	name          string
	sleepFailures uint64 // waits whose clock_nanosleep failed; the thread spun instead
	sleepErr      error  // the last of them
}

// StepStats are the failures of one GAM or broker.
type StepStats struct {
	Name     string
	Failures uint64 // executions that returned an error
	LastErr  error  // the most recent of them (may lag by a cycle)
}

// Err summarises step failures, and sleeps that failed (clock_nanosleep
// returned an error other than EINTR, and the thread spun to the deadline
// instead), as one error, or nil if there were none. It allocates; call
// it off the RT thread.
func (s *Stats) Err() error {
	if s == nil {
		return nil
	}
	var errs []error
	if s.sleepFailures > 0 {
		errs = append(errs, fmt.Errorf("rt: %s: %d sleeps failed (the thread spun to the deadline instead), last: %w",
			s.name, s.sleepFailures, s.sleepErr))
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Failures > 0 {
			errs = append(errs, fmt.Errorf("rt: %s: step %q failed %d of %d times, last: %w",
				s.name, st.Name, st.Failures, s.Cycles, st.LastErr))
		}
	}
	return errors.Join(errs...)
}

// acc is the RT thread's private accumulator; publish copies it into shared.
type acc struct {
	cycles, overruns, missed, failures uint64
	sleepFailures                      uint64
	yields                             uint64
	counter                            uint32 // Counter of the last cycle
	stepFailures                       []uint64
}

// record accounts for the cycle cy has just run and returns its cycle time
// (start to start; 0 for the first cycle).
func (a *acc) record(cy *cycle) (cycleTime int64) {
	a.cycles++
	a.missed += cy.pending
	a.counter = uint32(cy.idx)
	a.failures += cy.failed
	if cy.prevWake < 0 {
		return 0
	}
	return cy.wake - cy.prevWake
}

func (a *acc) init(nsteps int) {
	*a = acc{stepFailures: make([]uint64, nsteps)}
}

// shared is the seqlock-protected copy readers see. Every field is atomic so
// the race detector and the memory model agree with the seqlock.
type shared struct {
	seq                                atomic.Uint64
	cycles, overruns, missed, failures atomic.Uint64
	sleepFailures                      atomic.Uint64
	yields                             atomic.Uint64
	sleepErr                           errSlot
	steps                              []sharedStep
}

type sharedStep struct {
	failures atomic.Uint64
	err      errSlot
}

// errSlot holds the most recent error of a step or of the sleeps, set by
// the RT thread and read by ReadStats.
type errSlot struct {
	lock rtsync.FastLock
	err  error // guarded by lock
}

// set records err unless a reader holds the slot, in which case this
// failure is only counted (the next one will be recorded). It never waits.
func (e *errSlot) set(err error) {
	if e.lock.FastLock(0, 0) == nil { // one attempt
		e.err = err
		e.lock.FastUnLock()
	}
}

// getIf returns the recorded error if failed is true, else nil. It waits
// for the RT thread's set if one is under way (a few ns).
func (e *errSlot) getIf(failed bool) error {
	if !failed {
		return nil
	}
	e.lock.FastLock(rtsync.Forever, time.Microsecond)
	err := e.err
	e.lock.FastUnLock()
	return err
}

// publish copies a into s under the seqlock. Only the RT thread calls it.
// What rarely changes is compared first, sparing the store.
func (s *shared) publish(a *acc) {
	s.seq.Add(1)
	s.cycles.Store(a.cycles)
	if s.overruns.Load() != a.overruns {
		s.overruns.Store(a.overruns)
	}
	if s.missed.Load() != a.missed {
		s.missed.Store(a.missed)
	}
	if s.failures.Load() != a.failures {
		s.failures.Store(a.failures)
		for i, f := range a.stepFailures {
			s.steps[i].failures.Store(f)
		}
	}
	if s.sleepFailures.Load() != a.sleepFailures {
		s.sleepFailures.Store(a.sleepFailures)
	}
	if s.yields.Load() != a.yields {
		s.yields.Store(a.yields)
	}
	s.seq.Add(1)
}

// read fills dst; it retries while the RT thread is publishing.
func (s *shared) read(dst *Stats) {
	for try := 0; ; try++ {
		q := s.seq.Load()
		if q&1 != 0 {
			if try > 100 {
				runtime.Gosched()
			}
			continue
		}
		dst.Cycles = s.cycles.Load()
		dst.Overruns = s.overruns.Load()
		dst.MissedPeriods = s.missed.Load()
		dst.Failures = s.failures.Load()
		dst.sleepFailures = s.sleepFailures.Load()
		dst.Yields = s.yields.Load()
		for i := range s.steps {
			dst.Steps[i].Failures = s.steps[i].failures.Load()
		}
		if s.seq.Load() == q {
			break
		}
		if try > 100 {
			runtime.Gosched()
		}
	}
	// The errors, only where the snapshot counts failures: an error is
	// recorded before the failure is published, so none is missed.
	for i := range s.steps {
		dst.Steps[i].LastErr = s.steps[i].err.getIf(dst.Steps[i].Failures > 0)
	}
	dst.sleepErr = s.sleepErr.getIf(dst.sleepFailures > 0)
}
