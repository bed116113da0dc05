// Package cycles records the cycles of the daemon's RT threads: a Thread is an rt.Thread whose Config.Monitor writes every cycle's timings, and the late ones, into lock-free rings that goroutines off the RT thread drain.
//
// The timing collector drains DrainTimings into histograms, percentiles and
// a Summary since the start (docs/timings.md); the late-cycle forensics
// drain DrainLateCycles (internal/forensics). The RT thread only stores
// into preallocated rings: an atomic store per column and a comparison per
// cycle, a few more stores for a late one.
package cycles

import (
	"fmt"
	"math"
	"time"

	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// The columns of a row of DrainTimings: one row per cycle, in nanoseconds.
const (
	// TimingLateness is the wake-up minus the deadline.
	TimingLateness = 0
	// TimingCycle is the cycle time, start to start; 0 for the first
	// cycle after Start.
	TimingCycle = 1
	// TimingSteps is the first step's column: column TimingSteps+i is the
	// execution time of step i (GAMs then brokers, in order).
	TimingSteps = 2
)

// Sizing of the rings: enough rows for span of cycles, so a collector
// draining several times per span loses none, within bounds.
const (
	span          = 500 * time.Millisecond
	minTimingRows = 1024
	maxTimingRows = 1 << 15
	minLateRows   = 256
	maxLateRows   = 4096
)

// LateCycle is a cycle that woke more than the thread's late threshold
// (LateThreshold) after its deadline, or whose work ran past the next
// deadline, so that periods were skipped (an overrun: Missed > 0). The RT
// thread stamps it in a preallocated ring, with nothing a monitor could
// not learn elsewhere: explaining it (hypervisor steal, preemption, a page
// fault, a Go pause) is the job of whoever drains the ring.
type LateCycle struct {
	Counter  uint32        // the cycle's Counter signal
	Deadline int64         // the deadline it woke for, on cpu.Now's clock (ns)
	Wake     time.Duration // when it woke, after Deadline: its wake-up lateness
	End      time.Duration // when its last step returned, after Deadline
	Missed   uint64        // periods skipped after it because its work ended past them; 0 without an overrun
	Step     int           // the step that ran longest in the cycle (GAMs then brokers), -1 if none
	StepTime time.Duration // that step's execution time
	// YieldLate is how far past Deadline the Go scheduler gave the thread
	// back after it yielded its P before the cycle (rt.Cycle.YieldLate)
	YieldLate time.Duration
}

// Columns of a row of the late-cycle ring.
const (
	lateCounter = iota
	lateDeadline
	lateWake
	lateEnd
	lateMissed
	lateStep
	lateStepTime
	lateYield
	lateWidth
)

// Thread is an RT thread whose cycles are recorded. Its methods are safe
// for concurrent use, but DrainTimings and DrainLateCycles each by one
// goroutine at a time.
type Thread struct {
	*rt.Thread
	name    string
	period  int64 // ns
	mask    cpu.Mask
	after   int64 // the late threshold, ns
	steps   int
	timings *rtsync.SampleRing
	late    *rtsync.SampleRing
	scratch []int64 // DrainLateCycles's rows
}

// New builds the RT thread of cfg with its steps (rt.New) and records its
// cycles: every cycle's timings, and the cycles that wake more than
// lateThreshold after their deadline (0: half the period) or overrun it.
// A Monitor in cfg is called after the recording.
func New(cfg rt.Config, gams, brokers []rt.Step, lateThreshold time.Duration) (*Thread, error) {
	if lateThreshold < 0 {
		return nil, fmt.Errorf("rt: LateThreshold %v is negative", lateThreshold)
	}
	t := &Thread{name: cfg.Name, mask: cfg.CPUMask, steps: len(gams) + len(brokers)}
	then := cfg.Monitor
	cfg.Monitor = t.record
	if then != nil {
		cfg.Monitor = func(c *rt.Cycle) { t.record(c); then(c) }
	}
	th, err := rt.New(cfg, gams, brokers)
	if err != nil {
		return nil, err
	}
	t.Thread = th
	// rt.New has checked that Frequency and Period agree.
	p := cfg.Period
	if cfg.Frequency != 0 {
		p = time.Duration(math.Round(1e9 / cfg.Frequency))
	}
	t.period = int64(p)
	if lateThreshold == 0 {
		lateThreshold = p / 2
	}
	t.after = int64(lateThreshold)
	t.timings = rtsync.NewSampleRing(min(max(int(span/p), minTimingRows), maxTimingRows), TimingSteps+t.steps)
	t.late = rtsync.NewSampleRing(min(max(int(span/p), minLateRows), maxLateRows), lateWidth)
	t.scratch = make([]int64, 64*lateWidth)
	return t, nil
}

// Name returns the thread's name.
func (t *Thread) Name() string { return t.name }

// Period returns the cycle period.
func (t *Thread) Period() time.Duration { return time.Duration(t.period) }

// Affinity returns the CPUs the thread may run on: its CPUMask, which
// Start checks against the affinity read back inside the thread, or for
// an unpinned thread those of the process (0 if they cannot be read).
func (t *Thread) Affinity() cpu.Mask {
	if t.mask != 0 {
		return t.mask
	}
	m, _ := cpu.OnlineMask()
	return m
}

// LateThreshold returns how late a wake-up must be for the thread to stamp
// its cycle as late.
func (t *Thread) LateThreshold() time.Duration { return time.Duration(t.after) }

// TimingWidth returns the columns of a DrainTimings row: TimingSteps plus
// one per step.
func (t *Thread) TimingWidth() int { return TimingSteps + t.steps }

// record is the thread's rt.Config.Monitor, on the RT thread: it publishes
// the cycle's timing row and, if the cycle woke late or overran, its
// late-cycle row. It makes no system call and never allocates.
func (t *Thread) record(c *rt.Cycle) {
	row := t.timings.Row()
	row[TimingLateness].Store(int64(c.Wake))
	row[TimingCycle].Store(int64(c.CycleTime))
	for i, d := range c.Steps {
		row[TimingSteps+i].Store(int64(d))
	}
	t.timings.Publish()
	end, step, longest := c.Wake, -1, time.Duration(-1)
	for i, d := range c.Steps {
		end += d
		if d > longest {
			step, longest = i, d
		}
	}
	if int64(c.Wake) <= t.after && int64(end) < t.period {
		return
	}
	var missed int64
	if int64(end) >= t.period {
		missed = (int64(end)-t.period)/t.period + 1
	}
	row = t.late.Row()
	row[lateCounter].Store(int64(c.Counter))
	row[lateDeadline].Store(c.Deadline)
	row[lateWake].Store(int64(c.Wake))
	row[lateEnd].Store(int64(end))
	row[lateMissed].Store(missed)
	row[lateStep].Store(int64(step))
	row[lateStepTime].Store(int64(max(longest, 0)))
	row[lateYield].Store(int64(c.YieldLate))
	t.late.Publish()
}

// DrainTimings copies the per-cycle timings recorded since the last call
// into dst, TimingWidth columns per cycle, as many cycles as fit, oldest
// first; it returns the cycles copied and those lost because the caller
// came too late (the ring holds half a second of cycles, 1024 to 32768;
// the RT thread never waits for it). It never allocates.
func (t *Thread) DrainTimings(dst []int64) (cycles int, lost uint64) {
	return t.timings.Drain(dst)
}

// DrainLateCycles copies the late cycles stamped since the last call into
// dst, oldest first, as many as fit, and returns how many it copied and
// how many were lost because the caller came too late (the ring holds
// half a second of cycles, 256 to 4096; the RT thread never waits). It
// never allocates.
func (t *Thread) DrainLateCycles(dst []LateCycle) (n int, lost uint64) {
	for n < len(dst) {
		rows, l := t.late.Drain(t.scratch[:min(len(dst)-n, len(t.scratch)/lateWidth)*lateWidth])
		lost += l
		for i := range rows {
			r := t.scratch[i*lateWidth : (i+1)*lateWidth]
			dst[n] = LateCycle{
				Counter: uint32(r[lateCounter]), Deadline: r[lateDeadline],
				Wake: time.Duration(r[lateWake]), End: time.Duration(r[lateEnd]),
				Missed: uint64(r[lateMissed]), Step: int(r[lateStep]), StepTime: time.Duration(r[lateStepTime]),
				YieldLate: time.Duration(r[lateYield]),
			}
			n++
		}
		if rows == 0 {
			break
		}
	}
	return n, lost
}
