package netthread

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

// MaxSpin bounds the spin of WaitSpin (and the NetworkSpin of the producers):
// beyond it a spinning thread costs a whole CPU for no gain over parking.
const MaxSpin = 100 * time.Millisecond

// spinChecks is how many looks at the event Wait takes between two reads of
// the clock (a read costs about 25 ns, a look about 1 ns).
const spinChecks = 32

// spinWait is sem.WaitReset(timeout) that first spins for up to spin, looking
// at the event without parking. A Post that lands during the spin then
// costs the poster one compare-and-swap and no futex wake, and the waiter
// no wake-up from a halted CPU (microseconds each): worth it only on a
// thread pinned to a CPU of its own, which the spin keeps busy for up to
// spin after every wake-up. spin 0 parks at once.
//
// A look is sem.WaitReset(0): one atomic load while the event is not set,
// and the reset once it is.
func spinWait(sem *rtsync.EventSem, spin, timeout time.Duration) error {
	if spin > 0 {
		for start := time.Now(); time.Since(start) < spin; {
			for range spinChecks {
				if sem.WaitReset(0) == nil {
					return nil
				}
			}
		}
	}
	return sem.WaitReset(timeout)
}

// WaitMode is how a network thread waits for the next cycle between two
// updates: what a Post of the RT thread costs it, how soon the network
// thread takes the cycle, and how much CPU the waiting takes.
type WaitMode uint8

// The wait modes. WaitPaced is the zero value and the default.
const (
	// WaitPaced knows the period of the cycles: it sleeps on the EventSem
	// until shortly before the next cycle is due, spins until it comes,
	// for a bounded time, then parks. How early it wakes and how long it
	// spins are learnt online from the cycles it catches and misses, so
	// the RT thread's Post finds it spinning (no system call) and the
	// thread's CPU stays a few percent at 1 kHz. Without a period it parks,
	// as WaitPark does.
	WaitPaced WaitMode = iota
	// WaitSpin spins for a fixed time after every update, then parks: the
	// producers' NetworkSpin. At a period no longer than the spin it takes
	// a whole CPU.
	WaitSpin
	// WaitPark parks on the EventSem at once: every Post of the RT thread
	// then wakes it with a FUTEX_WAKE system call.
	WaitPark
	numWaitModes
)

var waitModeNames = [numWaitModes]string{"paced", "spin", "park"}

// String returns "paced", "spin" or "park".
func (m WaitMode) String() string {
	if m >= numWaitModes {
		return fmt.Sprintf("WaitMode(%d)", uint8(m))
	}
	return waitModeNames[m]
}

// valid reports whether m is one of the wait modes.
func (m WaitMode) valid() bool { return m < numWaitModes }

// CheckWait checks a producer's wait, its NetworkWait mode and its
// NetworkSpin: a known mode, a spin of 0..MaxSpin, and a spin only where
// the mode spins (the zero mode with a spin is WaitSpin, see NewWaiter).
// It returns the producer's parameter at fault and the rule broken.
func CheckWait(mode WaitMode, spin time.Duration) (param string, err error) {
	switch {
	case !mode.valid():
		return "NetworkWait", fmt.Errorf("must be paced, spin or park, got %v", mode)
	case spin < 0 || spin > MaxSpin:
		return "NetworkSpin", fmt.Errorf("must be 0..%v, got %v", MaxSpin, spin)
	case mode == WaitSpin && spin == 0:
		return "NetworkWait", errors.New("spin needs a NetworkSpin above 0")
	case mode == WaitPark && spin != 0:
		return "NetworkSpin", fmt.Errorf("is %v: it applies to NetworkWait spin, not park", spin)
	}
	return "", nil
}

// Bounds of the paced wait.
const (
	// pacedMinSleep: a window closer than this is spun for rather than
	// slept for; a futex sleep and its wake-up cost a few µs of CPU.
	pacedMinSleep = 20 * time.Microsecond
	// pacedMinWindow bounds lead and late from below, so a quiet spell
	// never shrinks the window to nothing.
	pacedMinWindow = 2 * time.Microsecond
	// pacedStartLead is the lead and the late window before anything has
	// been learnt (at most an eighth of the period, the most either may
	// grow to, so the spin never takes more than a quarter of the CPU).
	pacedStartLead = 100 * time.Microsecond
	// pacedMissRatio is how many caught cycles one missed cycle weighs:
	// the lead settles where about 1 cycle in pacedMissRatio+1 comes
	// before the thread spins (then the Post wakes it).
	pacedMissRatio = 19
	// pacedFarRun: after this many cycles in a row a quarter period or
	// more past the expected instant, the phase is taken again from the
	// last one.
	pacedFarRun = 8
	// pacedWindow cycles are judged together: when fewer than half of them
	// were caught spinning, the cycles come too irregularly for the spin to
	// pay (an overloaded machine, an RT thread held off its CPU), and the
	// wait parks, as WaitPark does, for pacedRest before it tries again.
	pacedWindow = 256
	pacedRest   = time.Second
)

// Waiter is one network thread's wait for the next cycle on the producer's
// EventSem, in one of the WaitModes. Wait is called by the network thread
// only; Stats by any goroutine. It never allocates after NewWaiter.
type Waiter struct {
	mode   WaitMode
	spin   time.Duration
	period int64 // ns; 0: unknown

	// Network thread only: what the paced wait has learnt.
	epoch      time.Time
	started    bool
	spins      bool  // the thread may run on two CPUs or more
	haveGrid   bool  // grid holds an instant cycles are due at
	grid       int64 // a cycle is due at grid + k·period (ns since epoch)
	lastDue    int64 // the instant the last cycle taken was due at
	far        int   // cycles in a row far past the expected instant
	lead       int64 // wake this long before the expected instant (ns)
	late       int64 // spin this long past it before parking (ns)
	idle       bool  // the last wait saw no cycle: park until one comes
	quiet      bool  // the last Wait timed out (idleLong)
	judged     int   // cycles of the current window
	hits       int   // of them caught spinning
	rest       int64 // park until this instant: the spin did not pay
	yielded    int64 // when the thread last yielded its P (yield)
	yieldPause int64 // no yield before this instant: the last one was slow
	yields     bool  // it may: the process has two Ps or more

	// Any goroutine. caught counts the cycles the thread was spinning for
	// when they came (their Post made no system call), woken those that
	// woke it from a sleep or a park; rests the times the wait parked for
	// pacedRest; spun is the time spent spinning, in all (ns).
	caught, woken, spun, rests atomic.Uint64
	leadNow, lateNow           atomic.Int64
}

// NewWaiter returns a Waiter in mode: spin is WaitSpin's spin
// (0..MaxSpin), period the interval between two cycles, which WaitPaced
// needs (0: unknown, then it parks). WaitPaced, the zero mode, with a spin
// above 0 is WaitSpin: the producers' NetworkSpin alone selects the spin.
func NewWaiter(mode WaitMode, spin, period time.Duration) *Waiter {
	if mode == WaitPaced && spin > 0 {
		mode = WaitSpin
	}
	w := &Waiter{mode: mode, spin: spin, period: int64(max(period, 0))}
	w.unlearn()
	return w
}

// Mode returns the wait mode (WaitPark for a nil Waiter, which parks).
func (w *Waiter) Mode() WaitMode {
	if w == nil {
		return WaitPark
	}
	return w.mode
}

// WaitStats is what a paced wait has learnt (its starting values for the
// other modes).
type WaitStats struct {
	// Lead is how long before a cycle is due the thread asks to be woken,
	// learnt from the wake-ups it gets and the cycles it misses; Late how
	// long past that instant it spins before it parks.
	Lead, Late time.Duration
}

// Stats returns what the paced wait has learnt; any goroutine.
func (w *Waiter) Stats() WaitStats {
	if w == nil {
		return WaitStats{}
	}
	return WaitStats{Lead: time.Duration(w.leadNow.Load()), Late: time.Duration(w.lateNow.Load())}
}

// errNilSem is Wait's error for a nil EventSem.
var errNilSem = errors.New("netthread: Wait on a nil EventSem (wait on the producer's own)")

// Wait waits for the next Post on sem and resets it, as sem.WaitReset:
// nil when a Post came, rtsync.ErrTimeout after timeout. A timeout of
// rtsync.Forever waits without limit; any other below 0 (a deadline
// already past) only looks, as 0 does, and teaches the paced wait
// nothing. Network thread only. A nil Waiter parks, as WaitPark does.
func (w *Waiter) Wait(sem *rtsync.EventSem, timeout time.Duration) error {
	if sem == nil {
		return errNilSem
	}
	if w == nil || timeout < 0 && timeout != rtsync.Forever {
		return sem.WaitReset(timeout)
	}
	switch w.mode {
	case WaitSpin:
		return spinWait(sem, w.spin, timeout)
	case WaitPaced:
		err := w.paced(sem, timeout)
		w.quiet = err != nil
		return err
	}
	if sem.WaitReset(0) == nil {
		w.quiet = false
		return nil
	}
	if !w.started {
		w.start()
	}
	if !w.idleLong(timeout) {
		w.yield(w.now() + w.period)
	}
	err := sem.WaitReset(timeout)
	w.quiet = err != nil
	return err
}

// idleLong reports whether the last wait saw no cycle and this one may
// park for yieldIdle or more: then it does not yield its P. The runtime's
// monitor takes the P of a thread parked that long anyway, about 20 µs
// into the park, where a yield just before it only sets the monitor
// polling every 20 µs for 10 ms before it takes the P (2 to 4 % of a CPU
// for an idle producer, against under 0.1 %).
func (w *Waiter) idleLong(timeout time.Duration) bool {
	return w.quiet && (timeout == rtsync.Forever || timeout >= yieldIdle)
}

// Yields of the network thread's P to the Go scheduler, as rt's threads
// do (see rt's Scheduling section): the runtime's monitor thread takes
// the P of a goroutine not rescheduled for 10 ms at each of its system
// calls, here every sleep and park, and then polls every 20 µs. The paced
// and park waits yield, but not an idle one before a long park (idleLong);
// WaitSpin, which spins most of the time anyway, does not.
const (
	// yieldEvery is the most time between two yields.
	yieldEvery = 8 * time.Millisecond
	// yieldMinSlack: the paced wait yields only this long or more before
	// it means to spin (a yield takes two thread hand-offs, about 30 µs).
	yieldMinSlack = 200 * time.Microsecond
	// A yield that took longer than yieldSlow (the process's other threads
	// did not get a CPU) stops them for yieldPause: it delayed a send.
	yieldSlow  = time.Millisecond
	yieldPause = time.Second
	// yieldIdle: an idle thread's park of this long or more does not
	// yield (idleLong).
	yieldIdle = 10 * time.Millisecond
)

// gosched is runtime.Gosched; tests stage what happens during a yield.
var gosched = runtime.Gosched

// yield gives the thread's P back to the Go scheduler when the next cycle,
// expected at next (the Waiter's clock; now when unknown), would come
// yieldEvery or more after the last yield; it reports whether it did.
func (w *Waiter) yield(next int64) bool {
	now := w.now()
	if !w.yields || next-w.yielded < int64(yieldEvery) || now < w.yieldPause {
		return false
	}
	gosched()
	w.yielded = w.now()
	if w.yielded-now > int64(yieldSlow) {
		w.yieldPause = w.yielded + int64(yieldPause)
	}
	return true
}

// now returns the Waiter's clock, ns since its epoch (CLOCK_MONOTONIC
// through the vDSO).
func (w *Waiter) now() int64 { return int64(time.Since(w.epoch)) }

// start sets the wait up on the network thread at its first Wait: a timer
// slack of 1 ns, so its timed sleeps end when asked (the thread's own
// setting); whether it may spin at all: not when the process has one CPU,
// where the spin would hold off the RT thread it waits for; and whether it
// may yield its P.
func (w *Waiter) start() {
	w.started, w.epoch = true, time.Now()
	_ = cpu.SetTimerSlack(time.Nanosecond)
	w.spins = runtime.NumCPU() >= 2
	// With one P a yield queues the thread behind every goroutine.
	w.yields = runtime.GOMAXPROCS(0) > 1
}

// paced is the WaitPaced wait: sleep on sem until lead before the next
// cycle is due, spin until late past it, then park for the rest of the
// timeout. Every step watches sem, so a cycle that comes early or late is
// taken at once; only one that comes while the thread sleeps or parks
// costs its Post a futex wake.
func (w *Waiter) paced(sem *rtsync.EventSem, timeout time.Duration) error {
	if sem.WaitReset(0) == nil {
		w.tookWhileBusy()
		return nil
	}
	if !w.started {
		w.start()
	}
	if w.period == 0 || !w.spins || !w.haveGrid || w.idle || (w.rest != 0 && w.now() < w.rest) {
		if !w.idleLong(timeout) && w.yield(w.now()+w.period) && sem.WaitReset(0) == nil {
			w.tookWhileBusy() // it came during the yield
			w.idle = false
			return nil
		}
		err := sem.WaitReset(timeout)
		if err == nil {
			w.woken.Add(1)
			w.observe(w.now())
		}
		w.idle = err != nil
		return err
	}
	now := w.now()
	deadline := now + int64(timeout)
	if timeout == rtsync.Forever {
		deadline = math.MaxInt64
	}
	due := w.nextDue(now)
	spinFrom, spinTo := due-w.lead, due+w.late
	if spinFrom-now >= int64(yieldMinSlack) && w.yield(due) {
		if sem.WaitReset(0) == nil {
			// It came during the yield: the cycle due, if the yield
			// lasted into its window; no instant to learn from.
			if w.now() >= spinFrom {
				w.lastDue = max(w.lastDue, due)
			} else {
				w.tookWhileBusy()
			}
			return nil
		}
		if now = w.now(); now >= deadline {
			return rtsync.ErrTimeout // the yield outlasted the timeout
		}
	}
	if spinFrom-now >= int64(pacedMinSleep) {
		if sem.WaitReset(time.Duration(min(spinFrom, deadline)-now)) == nil {
			// Woken by the Post: the thread asked to wake too late.
			w.woken.Add(1)
			w.judge(false)
			w.lead = min(w.lead+max(w.lead*pacedMissRatio/256, int64(pacedMinWindow)), w.maxWindow())
			w.leadNow.Store(w.lead)
			w.observe(w.now())
			return nil
		}
		if spinFrom >= deadline {
			return rtsync.ErrTimeout
		}
	}
	t0 := w.now()
	for end := min(spinTo, deadline); ; {
		for range spinChecks {
			if sem.WaitReset(0) == nil {
				at := w.now()
				w.spun.Add(uint64(at - t0))
				w.caught.Add(1)
				w.judge(true)
				w.lead = max(w.lead-max(w.lead/256, 1), int64(pacedMinWindow))
				w.late = max(w.late-max(w.late/256, 1), int64(pacedMinWindow))
				w.leadNow.Store(w.lead)
				w.lateNow.Store(w.late)
				w.observe(at)
				return nil
			}
		}
		if t := w.now(); t >= end {
			w.spun.Add(uint64(t - t0))
			break
		}
	}
	// Later than the window: park for the rest, and widen the window.
	w.late = min(w.late+max(w.late*pacedMissRatio/256, int64(pacedMinWindow)), w.maxWindow())
	w.lateNow.Store(w.late)
	if left := deadline - w.now(); left > 0 && sem.WaitReset(time.Duration(left)) == nil {
		w.woken.Add(1)
		w.judge(false)
		w.observe(w.now())
		return nil
	}
	w.idle = true
	return rtsync.ErrTimeout
}

// tookWhileBusy records a cycle taken when it was already there (the
// thread was busy, or yielding its P): no instant to learn from, but a
// cycle due at or before now has come.
func (w *Waiter) tookWhileBusy() {
	if w.haveGrid && w.started {
		w.lastDue = max(w.lastDue, w.nextDue(w.now()-w.late)-w.period)
	}
}

// maxWindow bounds lead and late: an eighth of the period each.
func (w *Waiter) maxWindow() int64 { return max(w.period/8, int64(pacedMinWindow)) }

// unlearn sets lead and late to their starting values.
func (w *Waiter) unlearn() {
	w.lead = min(int64(pacedStartLead), w.maxWindow())
	w.late = w.lead
	w.leadNow.Store(w.lead)
	w.lateNow.Store(w.late)
}

// judge counts one cycle of the window, caught spinning or not, and at
// the end of a window where fewer than half were caught parks the wait
// for pacedRest.
func (w *Waiter) judge(caught bool) {
	w.judged++
	if caught {
		w.hits++
	}
	if w.judged < pacedWindow {
		return
	}
	if w.hits < pacedWindow/2 {
		w.rest = w.now() + int64(pacedRest)
		w.rests.Add(1)
		w.unlearn() // try afresh after the rest
	}
	w.judged, w.hits = 0, 0
}

// nextDue returns the instant the next cycle is due at: the first after
// the last one taken whose spin window has not closed at now.
func (w *Waiter) nextDue(now int64) int64 {
	due := w.grid
	if d := now - w.late - due; d >= 0 {
		due += (d/w.period + 1) * w.period
	}
	for due < w.lastDue+w.period/2 { // the grid may have moved a little since
		due += w.period
	}
	return due
}

// observe learns the phase of the cycles from one that came at t (or, for
// one that woke the thread, shortly before t). The cycle belongs to the
// last instant due at or before t, or to the next when it comes at most a
// quarter period before it. The grid follows an early cycle by a quarter
// of the difference and a late one by a 64th, so it settles near the
// earliest instants cycles come at. A cycle far from its instant (more
// than a quarter period late: an RT thread held off its CPU; more than an
// eighth early: a stray Post, such as a session change) moves nothing,
// unless pacedFarRun of them come in a row: then the phase has changed
// and is taken again from the last.
func (w *Waiter) observe(t int64) {
	w.idle = false
	if w.period == 0 {
		return
	}
	if !w.haveGrid {
		w.grid, w.lastDue, w.haveGrid = t, t, true
		return
	}
	base := w.grid + floorDiv(t-w.grid+w.period/4, w.period)*w.period
	off := t - base
	w.lastDue = base
	if off > w.period/4 || off < -w.period/8 {
		if w.far++; w.far >= pacedFarRun {
			w.grid, w.lastDue, w.far = t, t, 0
		}
		return
	}
	w.far = 0
	if off < 0 {
		w.grid = base + off/4
	} else {
		w.grid = base + off/64
	}
}

// floorDiv is a/b rounded down, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
