package netthread

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/rtsync"
)

func TestWaitModeNames(t *testing.T) {
	for m, want := range []string{"paced", "spin", "park"} {
		if got := WaitMode(m); got.String() != want || !got.valid() {
			t.Errorf("%d: %q, valid %v; want %q", m, got, got.valid(), want)
		}
	}
	if numWaitModes.valid() || numWaitModes.String() != "WaitMode(3)" {
		t.Errorf("out of range mode: valid %v, %q", numWaitModes.valid(), numWaitModes.String())
	}
}

// TestWaiterTakesEveryCycle runs each wait on a network thread against a
// poster publishing a sequence number every millisecond, as an RT thread
// does, and checks that the waiter takes the last one published and never
// sleeps through a Post: after each return it sees a number the poster
// published before or at that Post.
func TestWaiterTakesEveryCycle(t *testing.T) {
	for _, mode := range []WaitMode{WaitPaced, WaitSpin, WaitPark} {
		t.Run(mode.String(), func(t *testing.T) {
			const n = 300
			var sem rtsync.EventSem
			var seq, seen atomic.Uint64
			spin := time.Duration(0)
			if mode == WaitSpin {
				spin = 50 * time.Microsecond
			}
			w := NewWaiter(mode, spin, time.Millisecond)
			if w.Mode() != mode {
				t.Fatalf("mode %v, want %v", w.Mode(), mode)
			}
			th, err := Start(Config{Name: "wait-" + mode.String(), Wake: sem.Post}, func(stop <-chan struct{}) {
				for {
					err := w.Wait(&sem, 20*time.Millisecond)
					select {
					case <-stop:
						return
					default:
					}
					if err == nil {
						seen.Store(seq.Load())
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			next := time.Now()
			for i := uint64(1); i <= n; i++ {
				next = next.Add(time.Millisecond)
				time.Sleep(time.Until(next))
				seq.Store(i)
				sem.Post()
			}
			// The last Post is taken: within the wait's timeout, whatever
			// the load.
			for seen.Load() != n {
				runtime.Gosched()
			}
			th.Stop()
			st := w.Stats()
			caught, woken, spun := w.caught.Load(), w.woken.Load(), time.Duration(w.spun.Load())
			t.Logf("%v: caught %d, woken %d, spun %v, lead %v, late %v", mode, caught, woken, spun, st.Lead, st.Late)
			if mode != WaitPaced && (st != (WaitStats{Lead: pacedStartLead, Late: pacedStartLead}) || caught+woken+uint64(spun)+w.rests.Load() != 0) {
				t.Errorf("%v counted paced statistics: %+v, caught %d, woken %d, spun %v", mode, st, caught, woken, spun)
			}
			if mode == WaitPaced && caught+woken == 0 {
				t.Error("the paced wait counted no cycle")
			}
		})
	}
}

// TestWaiterTimesOut checks that every mode returns ErrTimeout when no
// Post comes, and that a paced wait that has learnt a phase does too.
func TestWaiterTimesOut(t *testing.T) {
	for _, mode := range []WaitMode{WaitPaced, WaitSpin, WaitPark} {
		var sem rtsync.EventSem
		spin := time.Duration(0)
		if mode == WaitSpin {
			spin = 50 * time.Microsecond
		}
		w := NewWaiter(mode, spin, time.Millisecond)
		if err := w.Wait(&sem, 2*time.Millisecond); !errors.Is(err, rtsync.ErrTimeout) {
			t.Errorf("%v: %v, want a timeout", mode, err)
		}
	}
	var sem rtsync.EventSem
	w := NewWaiter(WaitPaced, 0, time.Millisecond)
	w.start()
	w.spins, w.haveGrid, w.grid = true, true, w.now()
	if err := w.Wait(&sem, 3*time.Millisecond); !errors.Is(err, rtsync.ErrTimeout) {
		t.Errorf("paced with a phase: %v, want a timeout", err)
	}
	if !w.idle {
		t.Error("no cycle in a whole timeout, and the paced wait is not idle")
	}
	sem.Post()
	if err := w.Wait(&sem, time.Millisecond); err != nil || sem.WaitReset(0) == nil {
		t.Errorf("posted: %v, or still posted after the wait", err)
	}
	// Forever waits for the Post, through sleep, spin and park alike.
	w.idle, w.grid = false, w.now()
	go func() {
		time.Sleep(5 * time.Millisecond)
		sem.Post()
	}()
	if err := w.Wait(&sem, rtsync.Forever); err != nil {
		t.Errorf("paced with a phase, Forever: %v", err)
	}
}

// TestPacedPhase checks what the paced wait learns from the instants cycles
// come at: the first sets the phase, an early one pulls it a quarter of
// the way, a late one a 64th, a stray none, a run of far ones resets it,
// and the next
// instant due is the first after the last cycle taken whose window is
// still open.
func TestPacedPhase(t *testing.T) {
	w := NewWaiter(WaitPaced, 0, 1000*time.Nanosecond)
	w.late = 100
	w.observe(10_000)
	if !w.haveGrid || w.grid != 10_000 {
		t.Fatalf("first cycle: grid %d", w.grid)
	}
	w.observe(10_900) // 100 early for 11 000
	if w.grid != 10_975 {
		t.Errorf("early cycle: grid %d, want 10 975", w.grid)
	}
	// Strays move nothing: one 725 late for 10 975, one 200 early for 13 975.
	for _, at := range []int64{11_700, 13_775} {
		if w.observe(at); w.grid != 10_975 {
			t.Errorf("a stray at %d moved the grid to %d", at, w.grid)
		}
	}
	w.observe(14_975 + 128) // 128 late
	if w.grid != 14_977 || w.far != 0 {
		t.Errorf("late cycle: grid %d (far %d), want 14 977", w.grid, w.far)
	}
	for i := range pacedFarRun - 1 {
		w.observe(int64(20_000+i*1000) + 2977 + 300)
	}
	if w.grid != 14_977 {
		t.Fatalf("far cycles moved the grid to %d before the run was long enough", w.grid)
	}
	w.observe(int64(20_000+(pacedFarRun-1)*1000) + 2977 + 300)
	if w.grid != 30_277 {
		t.Errorf("after %d far cycles: grid %d, want 30 277", pacedFarRun, w.grid)
	}
	// The cycle due at 30 277 was taken: the next is due a period later,
	// then the first whose window (late = 100) is still open.
	for _, c := range []struct{ now, due int64 }{
		{30_300, 31_277}, {31_376, 31_277}, {31_377, 32_277}, {35_400, 36_277}, {36_376, 36_277}, {36_377, 37_277},
	} {
		if due := w.nextDue(c.now); due != c.due {
			t.Errorf("nextDue(%d) = %d, want %d", c.now, due, c.due)
		}
	}
	// Without a period nothing is learnt.
	var z Waiter
	z.observe(5)
	if z.haveGrid {
		t.Error("a phase learnt without a period")
	}
	if floorDiv(-1, 1000) != -1 || floorDiv(-1000, 1000) != -1 || floorDiv(999, 1000) != 0 {
		t.Error("floorDiv")
	}
}

var sinkWaitErr error

func TestWaiterNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	testenv.SkipIfPortable(t)
	var sem rtsync.EventSem
	for _, mode := range []WaitMode{WaitPaced, WaitSpin, WaitPark} {
		spin := time.Duration(0)
		if mode == WaitSpin {
			spin = 10 * time.Microsecond
		}
		w := NewWaiter(mode, spin, time.Millisecond)
		if n := testing.AllocsPerRun(100, func() { sem.Post(); sinkWaitErr = w.Wait(&sem, time.Millisecond) }); n != 0 {
			t.Errorf("%v, posted: %v allocations", mode, n)
		}
	}
	// The whole paced path: sleep, spin, park, time out.
	w := NewWaiter(WaitPaced, 0, time.Millisecond)
	w.start()
	w.spins, w.haveGrid, w.grid = true, true, w.now()
	if n := testing.AllocsPerRun(20, func() {
		w.idle = false
		sinkWaitErr = w.Wait(&sem, 2*time.Millisecond)
	}); n != 0 {
		t.Errorf("paced, sleep-spin-park: %v allocations", n)
	}
}

func TestCheckWait(t *testing.T) {
	for _, c := range []struct {
		mode  WaitMode
		spin  time.Duration
		param string
	}{
		{WaitPaced, 0, ""}, {WaitPaced, time.Millisecond, ""}, {WaitSpin, time.Millisecond, ""}, {WaitPark, 0, ""},
		{numWaitModes, 0, "NetworkWait"}, {WaitSpin, 0, "NetworkWait"}, {WaitPark, time.Microsecond, "NetworkSpin"},
		{WaitSpin, -1, "NetworkSpin"}, {WaitSpin, MaxSpin + 1, "NetworkSpin"},
	} {
		param, err := CheckWait(c.mode, c.spin)
		if param != c.param || (err != nil) != (c.param != "") {
			t.Errorf("CheckWait(%v, %v) = %q, %v; want %q", c.mode, c.spin, param, err, c.param)
		}
	}
	if m := NewWaiter(WaitPaced, time.Microsecond, time.Millisecond).Mode(); m != WaitSpin {
		t.Errorf("paced with a spin is %v, want spin", m)
	}
}

// TestPacedRests checks that a window of cycles mostly missed makes the
// paced wait park for a while, and one mostly caught does not.
func TestPacedRests(t *testing.T) {
	w := NewWaiter(WaitPaced, 0, time.Millisecond)
	w.start()
	for i := range pacedWindow {
		w.judge(i%2 == 0) // half caught: the spin pays
	}
	if w.rest != 0 || w.rests.Load() != 0 {
		t.Fatalf("rests after a window half caught: %+v", w.Stats())
	}
	for i := range pacedWindow {
		w.judge(i%4 == 0) // a quarter caught
	}
	if w.rest <= w.now() || w.rests.Load() != 1 {
		t.Fatalf("no rest after a window a quarter caught: rest %d, now %d, %+v", w.rest, w.now(), w.Stats())
	}
	// Resting, a paced wait with a phase parks: a Post wakes it.
	var sem rtsync.EventSem
	w.spins, w.haveGrid, w.grid = true, true, w.now()
	go func() {
		time.Sleep(2 * time.Millisecond)
		sem.Post()
	}()
	caught := w.caught.Load()
	if err := w.Wait(&sem, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if w.caught.Load() != caught || w.spun.Load() != 0 {
		t.Errorf("a resting wait spun: caught %d, spun %d ns", w.caught.Load(), w.spun.Load())
	}
}

// TestPacedPostDuringYield: a cycle posted while the paced wait yields its
// P, the yield lasting into the cycle's window, is the cycle due: taken
// without counting a wake-up or learning an instant, and the next wait is
// for the one after it.
func TestPacedPostDuringYield(t *testing.T) {
	var sem rtsync.EventSem
	const period = 10 * time.Millisecond
	w := NewWaiter(WaitPaced, 0, period)
	w.start()
	w.spins, w.yields, w.yielded = true, true, -int64(time.Hour)
	w.haveGrid, w.grid = true, w.now()+int64(5*time.Millisecond)
	due := w.nextDue(w.now())
	lead, late := w.lead, w.late
	gosched = func() {
		for w.now() < due-w.lead {
		}
		sem.Post()
	}
	defer func() { gosched = runtime.Gosched }()
	if err := w.Wait(&sem, time.Second); err != nil {
		t.Fatal(err)
	}
	if w.caught.Load() != 0 || w.woken.Load() != 0 || w.lastDue != due || w.lead != lead || w.late != late {
		t.Errorf("caught %d, woken %d, last due %d (want %d), lead %d late %d (were %d, %d)",
			w.caught.Load(), w.woken.Load(), w.lastDue, due, w.lead, w.late, lead, late)
	}
	// Asked at the instant of the cycle taken, not at now: a host that
	// stalls this thread past the window would move now into the next
	// period (CI saw 25005245 for 15005245 once).
	if next := w.nextDue(due); next != due+int64(period) {
		t.Errorf("next due %d, want %d", next, due+int64(period))
	}
}

// TestIdleWaitDoesNotYield: a wait that follows one that saw no cycle, and
// may park for yieldIdle or more, does not yield its P (the runtime's
// monitor takes it anyway, and a yield only sets the monitor polling);
// one after a cycle, or a short one, still does.
func TestIdleWaitDoesNotYield(t *testing.T) {
	for _, mode := range []WaitMode{WaitPark, WaitPaced} {
		var sem rtsync.EventSem
		w := NewWaiter(mode, 0, 0)
		w.start()
		w.yields = true
		yields := 0
		gosched = func() { yields++ }
		wait := func(timeout time.Duration) error {
			w.yielded = -int64(time.Hour) // a yield is due, if it may
			return w.Wait(&sem, timeout)
		}
		for i, c := range []struct {
			post    bool
			timeout time.Duration
			yield   bool
		}{
			{false, 20 * time.Millisecond, true},  // not idle yet
			{false, 20 * time.Millisecond, false}, // idle, a long park
			{false, time.Millisecond, true},       // idle, but a short park
			{true, 20 * time.Millisecond, false},  // idle: no yield, and the Post ends it
			{false, 20 * time.Millisecond, true},  // after a cycle
		} {
			if c.post {
				sem.Post()
			}
			n := yields
			if err := wait(c.timeout); (err == nil) != c.post {
				t.Fatalf("%v, wait %d: %v", mode, i, err)
			}
			if got := yields > n; got != c.yield {
				t.Errorf("%v, wait %d: yielded %v, want %v", mode, i, got, c.yield)
			}
		}
		gosched = runtime.Gosched
	}
}

// TestWaitOnNilSem: Wait on a nil EventSem returns an error in every mode
// (and from a nil Waiter), never a panic.
func TestWaitOnNilSem(t *testing.T) {
	for _, w := range []*Waiter{nil, NewWaiter(WaitPaced, 0, time.Millisecond), NewWaiter(WaitSpin, time.Microsecond, 0), NewWaiter(WaitPark, 0, 0)} {
		if err := w.Wait(nil, 0); !errors.Is(err, errNilSem) {
			t.Errorf("%v: Wait(nil): %v", w.Mode(), err)
		}
	}
}
