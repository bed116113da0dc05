package rt

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// LatencyBuckets are the upper bounds (inclusive) of the wake-up latency
// histogram in Stats.LatencyHist; the last bucket counts everything above
// the last bound. Early wake-ups (negative latency, impossible with
// clock_nanosleep) fall in bucket 0.
var LatencyBuckets = [numLatencyBuckets - 1]time.Duration{
	1 * time.Microsecond, 2 * time.Microsecond, 5 * time.Microsecond,
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	1 * time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 50 * time.Millisecond,
}

// NumLatencyBuckets is the number of buckets in Stats.LatencyHist.
const numLatencyBuckets = 15

func latencyBucket(ns int64) int {
	for i, b := range LatencyBuckets {
		if ns <= int64(b) {
			return i
		}
	}
	return numLatencyBuckets - 1
}

// Stats is a consistent snapshot of an RT thread's timings, in the spirit of
// MARTe2's CycleTime and per-GAM ExecTime. Durations are zero until there is
// a sample.
type Stats struct {
	Name     string
	Running  bool
	Affinity cpu.Mask // read back from inside the thread at its start
	Period   time.Duration

	Cycles        uint64 // cycles executed
	Counter       uint32 // Counter signal of the last cycle
	Overruns      uint64 // cycles whose work ended after the next deadline
	MissedPeriods uint64 // periods skipped before executed cycles; Counter = Cycles + MissedPeriods
	Failures      uint64 // failed step executions, all steps

	// SleepFailures counts waits whose sleep failed (clock_nanosleep
	// returned an error other than EINTR); the thread spun to the deadline
	// instead. LastSleepErr is the most recent such error.
	SleepFailures uint64
	LastSleepErr  error

	LastCycle, MinCycle, MaxCycle       time.Duration // start to start
	LastLatency, MinLatency, MaxLatency time.Duration // wake-up minus deadline
	LastBusy, MaxBusy                   time.Duration // all steps of one cycle

	LatencyHist [numLatencyBuckets]uint64 // see LatencyBuckets

	Steps []StepStats // GAMs then brokers, in execution order
}

// StepStats are the timings of one GAM or broker.
type StepStats struct {
	Name              string
	Executions        uint64
	Failures          uint64
	LastExec, MaxExec time.Duration
	TotalExec         time.Duration // sum over Executions, for the mean
	LastErr           error         // most recent failure (may lag by a cycle)
}

// Err summarises step and sleep failures as one error, or nil if there
// were none. It allocates; call it off the RT thread.
func (s *Stats) Err() error {
	var errs []error
	if s.SleepFailures > 0 {
		errs = append(errs, fmt.Errorf("rt: %s: %d sleeps failed (the thread spun to the deadline instead), last: %w",
			s.Name, s.SleepFailures, s.LastSleepErr))
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Failures > 0 {
			errs = append(errs, fmt.Errorf("rt: %s: step %q failed %d of %d times, last: %w",
				s.Name, st.Name, st.Failures, st.Executions, st.LastErr))
		}
	}
	return errors.Join(errs...)
}

// acc is the RT thread's private accumulator; publish copies it into shared.
type acc struct {
	cycles, overruns, missed, failures uint64
	sleepFailures                      uint64
	counter                            uint32
	lastCycle, minCycle, maxCycle      int64
	lastLat, minLat, maxLat            int64
	lastBusy, maxBusy                  int64
	hist                               [numLatencyBuckets]uint64
	steps                              []accStep
}

type accStep struct {
	execs, failures  uint64
	last, max, total int64
}

// record accounts for the cycle cy has just run and returns its cycle time
// (start to start; 0 for the first cycle).
func (a *acc) record(cy *cycle) (cycleTime int64) {
	lat := cy.wake - cy.deadline
	a.cycles++
	a.missed += cy.pending
	a.counter = uint32(cy.idx)
	a.failures += cy.failed
	a.lastLat = lat
	a.minLat = min(a.minLat, lat)
	a.maxLat = max(a.maxLat, lat)
	a.hist[latencyBucket(lat)]++
	a.lastBusy = cy.end - cy.wake
	a.maxBusy = max(a.maxBusy, a.lastBusy)
	if cy.prevWake < 0 {
		return 0
	}
	cycleTime = cy.wake - cy.prevWake
	a.lastCycle = cycleTime
	a.minCycle = min(a.minCycle, cycleTime)
	a.maxCycle = max(a.maxCycle, cycleTime)
	return cycleTime
}

// record accounts for one execution that took d ns.
func (s *accStep) record(d int64) {
	s.execs++
	s.last = d
	s.total += d
	s.max = max(s.max, d)
}

// record stores one cycle's samples in the rings; a nil Trace records
// nothing.
func (tr *traceRing) record(latency, cycleTime int64) {
	if tr == nil {
		return
	}
	if n := uint64(len(tr.latency)); n > 0 {
		tr.latency[tr.cycles%n] = latency
	}
	if n := uint64(len(tr.cycleTime)); n > 0 {
		tr.cycleTime[tr.cycles%n] = cycleTime
	}
	tr.cycles++
}

func (a *acc) init(nsteps int) {
	*a = acc{steps: make([]accStep, nsteps)}
	a.minCycle, a.minLat = math.MaxInt64, math.MaxInt64
	a.maxLat = math.MinInt64
}

// shared is the seqlock-protected copy readers see. Every field is atomic so
// the race detector and the memory model agree with the seqlock.
type shared struct {
	seq                                atomic.Uint64
	cycles, overruns, missed, failures atomic.Uint64
	sleepFailures                      atomic.Uint64
	sleepErr                           errSlot
	counter                            atomic.Uint32
	lastCycle, minCycle, maxCycle      atomic.Int64
	lastLat, minLat, maxLat            atomic.Int64
	lastBusy, maxBusy                  atomic.Int64
	hist                               [numLatencyBuckets]atomic.Uint64
	steps                              []sharedStep
}

type sharedStep struct {
	execs, failures  atomic.Uint64
	last, max, total atomic.Int64
	err              errSlot
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
func (s *shared) publish(a *acc) {
	s.seq.Add(1)
	s.cycles.Store(a.cycles)
	s.overruns.Store(a.overruns)
	s.missed.Store(a.missed)
	s.failures.Store(a.failures)
	if s.sleepFailures.Load() != a.sleepFailures { // rare: spare the store
		s.sleepFailures.Store(a.sleepFailures)
	}
	s.counter.Store(a.counter)
	s.lastCycle.Store(a.lastCycle)
	s.minCycle.Store(a.minCycle)
	s.maxCycle.Store(a.maxCycle)
	s.lastLat.Store(a.lastLat)
	s.minLat.Store(a.minLat)
	s.maxLat.Store(a.maxLat)
	s.lastBusy.Store(a.lastBusy)
	s.maxBusy.Store(a.maxBusy)
	for i := range a.hist {
		if s.hist[i].Load() != a.hist[i] {
			s.hist[i].Store(a.hist[i])
		}
	}
	for i := range a.steps {
		as, ss := &a.steps[i], &s.steps[i]
		ss.execs.Store(as.execs)
		ss.failures.Store(as.failures)
		ss.last.Store(as.last)
		ss.max.Store(as.max)
		ss.total.Store(as.total)
	}
	s.seq.Add(1)
}

func dur(ns int64, valid bool) time.Duration {
	if !valid {
		return 0
	}
	return time.Duration(ns)
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
		dst.SleepFailures = s.sleepFailures.Load()
		dst.Counter = s.counter.Load()
		dst.LastCycle = time.Duration(s.lastCycle.Load())
		minC := s.minCycle.Load()
		dst.MinCycle = dur(minC, minC != math.MaxInt64)
		dst.MaxCycle = time.Duration(s.maxCycle.Load())
		dst.LastLatency = time.Duration(s.lastLat.Load())
		minL, maxL := s.minLat.Load(), s.maxLat.Load()
		dst.MinLatency = dur(minL, minL != math.MaxInt64)
		dst.MaxLatency = dur(maxL, maxL != math.MinInt64)
		dst.LastBusy = time.Duration(s.lastBusy.Load())
		dst.MaxBusy = time.Duration(s.maxBusy.Load())
		for i := range s.hist {
			dst.LatencyHist[i] = s.hist[i].Load()
		}
		for i := range s.steps {
			ss, ds := &s.steps[i], &dst.Steps[i]
			ds.Executions = ss.execs.Load()
			ds.Failures = ss.failures.Load()
			ds.LastExec = time.Duration(ss.last.Load())
			ds.MaxExec = time.Duration(ss.max.Load())
			ds.TotalExec = time.Duration(ss.total.Load())
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
	dst.LastSleepErr = s.sleepErr.getIf(dst.SleepFailures > 0)
}
