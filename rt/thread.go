package rt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
)

// maxSleepChunk bounds a single clock_nanosleep so that Stop is seen within
// this long even when the period is long.
const maxSleepChunk = 50 * time.Millisecond

// The thread gives its P back to the Go scheduler between cycles now and
// then (yield). The runtime's monitor thread (sysmon) takes a goroutine
// that has not been rescheduled for forcePreempt as running too long: it
// takes the P of such a goroutine at each of its system calls (here, every
// sleep), so that every wake-up must find a P again, under the scheduler's
// lock and after sysmon has let go of it, and it keeps sysmon polling
// every 20 µs (3 to 6 % of a CPU on a 2-vCPU KVM guest). A goroutine
// rescheduled within that time keeps its P through its sleeps.
const (
	// yieldEvery is the most time between two yields, under the
	// runtime's 10 ms.
	yieldEvery = 8 * time.Millisecond
	// yieldMinSlack: a yield takes two thread hand-offs (30 µs at the
	// median on that VM, up to milliseconds when other threads hold the
	// CPUs), so the thread yields only with this long left before its
	// next deadline.
	yieldMinSlack = 200 * time.Microsecond
	// forcePreempt is the runtime's limit (forcePreemptNS). A thread whose
	// period is this long or more does not yield: sysmon takes the P of a
	// system call that lasts that long whatever the thread does.
	forcePreempt = 10 * time.Millisecond
	// yieldPause, yieldMaxPause, yieldCalm: the pauses after a yield that
	// came back after the deadline (yield).
	yieldPause    = time.Second
	yieldMaxPause = 64 * time.Second
	yieldCalm     = 1024
)

// stopGrace is how long Stop waits beyond one period for the thread to
// leave; only a step that blocks can make it expire.
const stopGrace = 2 * time.Second

// ErrNotRunning is returned by Stop on a thread that is not running: one
// never started, stopped already, or stopped by the context of its Start.
var ErrNotRunning = errors.New("rt: thread not running")

var (
	// errNotMade is returned by Start and Stop on a nil or zero Thread (such
	// as the nil a failed New returns, its error ignored).
	errNotMade = errors.New("rt: nil or zero Thread (make one with New, and check its error)")
	// errRunning is returned by Start on a running thread.
	errRunning = errors.New("rt: thread already running")
	// errStopTimeout is returned by Stop when the thread did not leave in
	// time, which means a step is blocked; the thread stops after it.
	errStopTimeout = errors.New("rt: thread did not stop in time (a step is blocked)")
	// errStopFromStep is returned by Stop called from one of the thread's
	// own steps, which would wait for itself.
	errStopFromStep = errors.New("rt: Stop called from a step of the thread itself: it cannot wait for its own cycle to end (call it from another goroutine, which the step may start: go th.Stop())")
)

// Thread is an RT thread: one goroutine locked to its own OS thread,
// optionally pinned and SCHED_FIFO, that wakes at absolute deadlines and runs
// its GAMs then its brokers, in order, once per period.
//
// The cycle loop does not allocate, block or make system calls other than
// clock_nanosleep; clocks are read through the vDSO (time.Since). Its
// counts go into preallocated memory, which ReadStats copies out for any
// goroutine; its timings go to Config.Monitor.
//
// All methods are safe for concurrent use; Start and Stop are serialised.
// A step that calls Stop of its own thread gets an error rather than wait
// for its own cycle to end (on Linux); Start from a step fails, as the
// thread runs.
type Thread struct {
	cfg    Config
	period int64 // ns
	steps  []Step
	nGAMs  int

	// counter and timeUs are the built-in signals; written at the start of
	// each cycle, read by the steps on the same thread.
	counter uint32
	timeUs  uint32

	acc    acc
	shared shared
	mon    Cycle        // what Config.Monitor is given; RT thread only
	tid    atomic.Int32 // OS thread id, recorded at start
	// clockOff converts the loop's clock to cpu.Now's; set by the RT
	// thread before its first cycle, read only by it.
	clockOff int64

	// sleep is cpu.SleepUntil; tests replace it to make sleeps fail.
	sleep func(abs int64) error

	mu      sync.Mutex  // Start/Stop
	stopCtx func() bool // ends the context.AfterFunc of Start
	running atomic.Bool
	stop    atomic.Bool
	done    <-chan struct{}
}

// New checks cfg and prepares a thread that will run gams then brokers each
// cycle. The step slices are copied. It refuses what Validate refuses;
// Validate's warnings are for the caller to print.
func New(cfg Config, gams, brokers []Step) (*Thread, error) {
	if _, err := Validate(cfg); err != nil {
		return nil, err
	}
	cfg.Name = cmp.Or(cfg.Name, defaultName)
	p, _ := cfg.period()
	t := &Thread{cfg: cfg, period: int64(p), nGAMs: len(gams), sleep: cpu.SleepUntil}
	t.steps = make([]Step, 0, len(gams)+len(brokers))
	t.steps = append(append(t.steps, gams...), brokers...)
	for i, s := range t.steps {
		if s.Exec == nil {
			return nil, fmt.Errorf("rt: %s: step %d (%q) has no Exec", cfg.Name, i, s.Name)
		}
		if v := reflect.ValueOf(s.Exec); v.Kind() == reflect.Pointer && v.IsNil() {
			// Its Execute would fail, or panic, every cycle.
			return nil, fmt.Errorf("rt: %s: step %d (%q): Exec is a nil %T", cfg.Name, i, s.Name, s.Exec)
		}
	}
	t.acc.init(len(t.steps))
	t.mon.Steps = make([]time.Duration, len(t.steps))
	t.shared.steps = make([]sharedStep, len(t.steps))
	t.shared.publish(&t.acc)
	return t, nil
}

// Counter returns the address of the Counter signal, as LinuxTimer's: 1 in
// the first cycle, then +1 per cycle, and +1+k after an overrun that skipped
// k periods, so Counter always numbers the deadline the cycle woke for. It
// wraps at 2^32. Read it only from the steps (the RT thread). Nil for a
// nil Thread.
func (t *Thread) Counter() *uint32 {
	if t == nil {
		return nil
	}
	return &t.counter
}

// made reports whether t came from New: not a nil or zero Thread.
func (t *Thread) made() bool { return t != nil && t.period > 0 }

// Time returns the address of the Time signal: Counter × period in
// microseconds (nominal, not measured), wrapping at 2^32 as MARTe2's uint32.
// Read it only from the steps. Nil for a nil Thread.
func (t *Thread) Time() *uint32 {
	if t == nil {
		return nil
	}
	return &t.timeUs
}

// ThreadID returns the OS thread id of the RT thread (the TID of
// /proc/self/task/TID), recorded when it last started; 0 before its first
// start and on systems other than Linux.
func (t *Thread) ThreadID() int {
	if t == nil {
		return 0
	}
	return int(t.tid.Load())
}

// ReadStats copies a consistent snapshot into dst without blocking the RT
// thread. It does not allocate once dst has been filled before.
func (t *Thread) ReadStats(dst *Stats) {
	if dst == nil {
		return
	}
	if t == nil {
		*dst = Stats{Steps: dst.Steps[:0]}
		return
	}
	if len(dst.Steps) != len(t.steps) {
		dst.Steps = make([]StepStats, len(t.steps))
	}
	for i := range t.steps {
		dst.Steps[i].Name = t.steps[i].Name
	}
	dst.name, dst.Running = t.cfg.Name, t.running.Load()
	t.shared.read(dst)
}

// Stats returns a snapshot (it allocates the Steps slice).
func (t *Thread) Stats() Stats {
	var s Stats
	t.ReadStats(&s)
	return s
}

// Start applies the process-wide settings (mlockall, GC policy), starts the
// thread and returns once it is pinned and prioritised, or the error that
// prevented it (then nothing is left running and the GC policy is restored).
// The thread runs until Stop, or until ctx is done: then it stops as Stop
// does (call Stop afterwards to wait for it; it returns ErrNotRunning once
// the thread has left, nil if it stopped it first). A nil ctx, or one
// already done, is refused. A stopped thread can be started again; its
// statistics carry on, and the context of an earlier Start stops it no
// more. A nil or zero Thread (New did not make it) is refused with an
// error.
func (t *Thread) Start(ctx context.Context) error {
	if !t.made() {
		return errNotMade
	}
	if ctx == nil {
		return fmt.Errorf("rt: %s: Start: nil context (use context.Background() for a thread stopped only by Stop)", t.cfg.Name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rt: %s: Start: %w", t.cfg.Name, err)
	}
	if t.running.Load() {
		return errRunning
	}
	if t.cfg.LockMemory {
		if err := lockMemory(); err != nil {
			return fmt.Errorf("rt: %s: %w", t.cfg.Name, err)
		}
	}
	if t.cfg.GCOff {
		holdGCOff(t.cfg.MemoryLimit)
	}
	t.stop.Store(false)
	tid, done, err := cpu.StartThread(t.cfg.CPUMask, t.cfg.Priority, t.loop)
	if err != nil {
		t.restoreGC()
		return fmt.Errorf("rt: %s: %w", t.cfg.Name, err)
	}
	t.tid.Store(int32(tid))
	t.done = done
	t.running.Store(true)
	if ctx.Done() != nil {
		// The stop belongs to this run: one that comes late, after a Stop
		// and a new Start, must not stop the next run.
		t.stopCtx = context.AfterFunc(ctx, func() { _ = t.stopRun(done) })
	}
	return nil
}

func (t *Thread) restoreGC() {
	if t.cfg.GCOff {
		releaseGCOff(t.cfg.MemoryLimit)
	}
}

// Stop asks the thread to leave and waits for it: it returns within one
// period plus about 50 ms unless a step blocks, in which case it gives up
// after a further grace and returns an error saying so (Stop may be called
// again). It restores the GC policy Start changed. A nil or zero Thread
// returns an error.
func (t *Thread) Stop() error {
	if !t.made() {
		return errNotMade
	}
	if tid := t.tid.Load(); tid != 0 && t.running.Load() && int(tid) == cpu.ThreadID() {
		return errStopFromStep
	}
	return t.stopRun(nil)
}

// stopRun is Stop of the run whose loop closes run when it ends (nil: the
// run going on), ErrNotRunning when that run has already been stopped.
func (t *Thread) stopRun(run <-chan struct{}) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.running.Load() || run != nil && run != t.done {
		return ErrNotRunning
	}
	if t.stopCtx != nil {
		t.stopCtx()
		t.stopCtx = nil
	}
	t.stop.Store(true)
	timer := time.NewTimer(time.Duration(t.period) + maxSleepChunk + stopGrace)
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
		return errStopTimeout
	}
	t.running.Store(false)
	t.restoreGC()
	return nil
}

// clock converts between the vDSO clock behind time.Since (CLOCK_MONOTONIC)
// and the absolute deadlines of cpu.SleepUntil (cpu.MonotonicNanos).
type clock struct {
	base time.Time
	off  int64 // CLOCK_MONOTONIC ns at base
}

func newClock() clock {
	c := clock{base: time.Now()}
	best := int64(1 << 62)
	for range 5 { // keep the tightest bracket
		a := int64(time.Since(c.base))
		m := cpu.MonotonicNanos()
		b := int64(time.Since(c.base))
		if b-a < best {
			best, c.off = b-a, m-(a+b)/2
		}
	}
	return c
}

func (c *clock) now() int64 { return int64(time.Since(c.base)) }

// sleepUntil sleeps until dl (clock ns) in chunks of at most maxSleepChunk,
// returning false early if stop is set. A sleep that fails (other than by
// a signal, which cpu.SleepUntil restarts) is counted and published, and
// the thread spins to the deadline instead.
func (t *Thread) sleepUntil(c *clock, dl int64) bool {
	for {
		if t.stop.Load() {
			return false
		}
		now := c.now()
		if now >= dl {
			return true
		}
		if err := t.sleep(min(dl, now+int64(maxSleepChunk)) + c.off); err != nil {
			t.acc.sleepFailures++
			t.shared.sleepErr.set(err)
			return t.spinUntil(c, dl)
		}
	}
}

// spinUntil polls the clock until dl, returning false early if stop is set.
func (t *Thread) spinUntil(c *clock, dl int64) bool {
	for c.now() < dl {
		if t.stop.Load() {
			return false
		}
	}
	return true
}

func (t *Thread) wait(c *clock, dl int64) bool {
	switch t.cfg.SleepNature {
	case Busy:
		return t.spinUntil(c, dl)
	case Hybrid:
		spin := t.period * int64(100-t.cfg.SleepPercentage) / 100
		return t.sleepUntil(c, dl-spin) && t.spinUntil(c, dl)
	}
	return t.sleepUntil(c, dl)
}

// cycle is the loop's state: the cycle running and what the next one
// needs from it. Times are clock ns.
type cycle struct {
	idx      uint64 // Counter of this cycle
	deadline int64  // the deadline it woke for
	wake     int64  // when it woke
	end      int64  // when its last step returned
	prevWake int64  // previous cycle's wake; -1 before the first
	failed   uint64 // steps that failed in this cycle
	pending  uint64 // periods skipped just before this cycle
	// yieldLate: how far past deadline the yield before this cycle's
	// sleep came back
	yieldLate int64
}

// loop runs cycles until stop. Everything it touches is preallocated.
func (t *Thread) loop() {
	// Under normal scheduling the kernel may add its 50 µs default timer
	// slack to every sleep; SCHED_FIFO threads have none. Off Linux this
	// is not supported and the error says nothing worth reporting.
	_ = cpu.SetTimerSlack(time.Nanosecond)
	c := newClock()
	// How the loop's clock maps onto cpu.Now's, for Config.Monitor.
	t.clockOff = cpu.Now() - c.now()
	a := &t.acc
	// Counter continues after a restart.
	cy := cycle{idx: uint64(a.counter) + 1, deadline: c.now() + t.period, prevWake: -1}
	y := newYielder(t.period)
	for t.wait(&c, cy.deadline) {
		cy.wake = c.now()
		t.counter = uint32(cy.idx)
		t.timeUs = uint32(cy.idx * uint64(t.period) / 1000)
		cy.end, cy.failed = t.runSteps(&c, cy.wake)
		cycleTime := a.record(&cy)
		if t.cfg.Monitor != nil {
			t.monitor(cy.deadline, &cy, cycleTime)
		}
		if cy.advance(t.period) {
			a.overruns++
		}
		t.shared.publish(a)
		cy.yieldLate = t.yield(&c, cy.deadline, &y)
	}
}

// yielder is the loop's state of its yields (yield).
type yielder struct {
	on      bool  // the period is under forcePreempt and the process has two Ps or more
	last    int64 // when the thread last yielded (clock ns)
	pause   int64 // no yield before this instant: one came back late
	backoff int64 // the length of the last pause
	inTime  int   // yields back in time since the last late one
}

func newYielder(period int64) yielder {
	// With one P (GOMAXPROCS=1 in the environment; cpu.StartThread
	// otherwise adds a P per thread), the runtime takes it at every sleep
	// whatever the thread does, and a yield would queue the thread behind
	// every goroutine.
	return yielder{on: period < int64(forcePreempt) && runtime.GOMAXPROCS(0) > 1}
}

// yield gives the thread's P back to the Go scheduler (runtime.Gosched)
// when y says it is due before the next deadline dl, and returns how far
// past dl the scheduler gave the thread back (0 if it did not yield, or in
// time). After a yield back late, the thread yields no more for
// yieldPause, twice as long after each further late one, up to
// yieldMaxPause, so a process whose other threads do not get a CPU makes
// at most one cycle late so per pause; the pauses start again from
// yieldPause after yieldCalm yields in time. The hand-off is at most one
// voluntary context switch of the thread besides its sleeps, counted in
// Stats.Yields.
func (t *Thread) yield(c *clock, dl int64, y *yielder) (late int64) {
	if !y.due(c.now(), dl) {
		return 0
	}
	// Counted and published before the switch, so that a reader of
	// Stats never sees the thread's voluntary switch of a yield without
	// the yield (the late-cycle monitor compares the two).
	t.acc.yields++
	t.shared.publish(&t.acc)
	runtime.Gosched()
	return y.back(c.now(), dl)
}

// due reports whether the thread should yield at now, its next deadline
// dl: when waiting for the next cycle's chance would leave yieldEvery or
// more between two yields (so they are at most yieldEvery apart whatever
// the period).
func (y *yielder) due(now, dl int64) bool {
	return y.on && dl-y.last >= int64(yieldEvery) && now >= y.pause && dl-now >= int64(yieldMinSlack)
}

// back records a yield the scheduler ended at now and returns how far past
// the deadline dl that was (0: in time), setting the pause after a late one.
func (y *yielder) back(now, dl int64) (late int64) {
	y.last = now
	if late = now - dl; late <= 0 {
		if y.inTime++; y.inTime >= yieldCalm {
			y.backoff = 0
		}
		return 0
	}
	y.inTime = 0
	y.backoff = min(max(2*y.backoff, int64(yieldPause)), int64(yieldMaxPause))
	y.pause = now + y.backoff
	return late
}

// runSteps executes every step once, from start (clock ns), timing each;
// it returns when the last one returned and how many failed.
func (t *Thread) runSteps(c *clock, start int64) (end int64, failed uint64) {
	prev := start
	for i := range t.steps {
		err := t.steps[i].Exec.Execute()
		now := c.now()
		t.mon.Steps[i] = time.Duration(now - prev)
		prev = now
		if err != nil {
			t.acc.stepFailures[i]++
			failed++
			t.shared.steps[i].err.set(err)
		}
	}
	return prev, failed
}

// advance moves cy to the next deadline. An overrun (the work ended at or
// after it) skips the periods already gone, as LinuxTimer does: advance
// then reports true and the Counter jumps by the periods skipped.
func (cy *cycle) advance(period int64) (overrun bool) {
	cy.prevWake = cy.wake
	cy.pending = 0
	cy.deadline += period
	cy.idx++
	if cy.end < cy.deadline {
		return false
	}
	missed := (cy.end-cy.deadline)/period + 1
	cy.deadline += missed * period
	cy.idx += uint64(missed)
	cy.pending = uint64(missed)
	return true
}
