package rt

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// stepFunc makes a test's closure a step.
type stepFunc func() error

func (f stepFunc) Execute() error { return f() }

func nop() error { return nil }

func TestValidate(t *testing.T) {
	bad := []Config{
		{},
		{Frequency: -1},
		{Frequency: 1000, Period: 2 * time.Millisecond},
		{Period: 100 * time.Nanosecond},
		{Period: 2 * time.Hour},
		{Frequency: 1000, Priority: 100},
		{Frequency: 1000, SleepNature: 7},
		{Frequency: 1000, SleepNature: Hybrid, SleepPercentage: 101},
		{Frequency: 1000, GCOff: true},
	}
	for _, c := range bad {
		if _, err := Validate(c); err == nil {
			t.Errorf("Validate(%+v) accepted", c)
		}
	}
	good := []Config{
		{Frequency: 1000},
		{Period: time.Millisecond, Frequency: 1000},
		{Period: time.Millisecond, SleepNature: Hybrid, SleepPercentage: 80, Priority: 50, CPUMask: 2},
	}
	for _, c := range good {
		w, err := Validate(c)
		if err != nil || len(w) != 0 {
			t.Errorf("Validate(%+v) = %q, %v", c, w, err)
		}
	}
	w, err := Validate(Config{Name: "spinner", Frequency: 1000, SleepNature: Busy, Priority: 50})
	if err != nil || len(w) != 2 || !strings.Contains(w[0], "SCHED_FIFO") || !strings.Contains(w[1], "CPUMask") {
		t.Errorf("Busy FIFO: warnings %q, %v", w, err)
	}
	w, _ = Validate(Config{Frequency: 1000, SleepNature: Hybrid, SleepPercentage: 5, Priority: 50, CPUMask: 2})
	if len(w) != 1 {
		t.Errorf("Hybrid 5%% FIFO: warnings %q", w)
	}
	if w, _ = Validate(Config{Frequency: 1000, SleepNature: Hybrid, SleepPercentage: 20, Priority: 50, CPUMask: 2}); len(w) != 0 {
		t.Errorf("Hybrid 20%% FIFO, within the throttling budget: warnings %q", w)
	}
	w, _ = Validate(Config{Frequency: 20000})
	if len(w) != 1 {
		t.Errorf("Default at 20 kHz: warnings %q", w)
	}
	if _, err := New(Config{Frequency: 1000}, []Step{{Name: "nil"}}, nil); err == nil {
		t.Error("nil Exec accepted")
	}
	var nilStep *countingStep
	if _, err := New(Config{Frequency: 1000}, []Step{{Name: "typed nil", Exec: nilStep}}, nil); err == nil || !strings.Contains(err.Error(), "Exec is a nil *rt.countingStep") {
		t.Errorf("a typed nil Exec: %v", err)
	}
}

func TestSleepNatureString(t *testing.T) {
	for n := Default; n <= Hybrid; n++ {
		back, err := parseSleepNature(strings.ToLower(n.String()))
		if err != nil || back != n {
			t.Errorf("%v: %v, %v", n, back, err)
		}
	}
	if _, err := parseSleepNature("Sometimes"); err == nil {
		t.Error("bad nature parsed")
	}
	if s := SleepNature(9).String(); s != "SleepNature(9)" {
		t.Error(s)
	}
}

// waitCycles blocks until the thread has run n more cycles; it does not
// allocate.
func waitCycles(cycles *atomic.Uint64, n uint64) {
	target := cycles.Load() + n
	for cycles.Load() < target {
		time.Sleep(200 * time.Microsecond)
	}
}

// runCycles starts th, waits until it has run n more cycles and stops it.
func runCycles(t *testing.T, th *Thread, cycles *atomic.Uint64, n uint64) {
	t.Helper()
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitCycles(cycles, n)
	if err := th.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestRunOrderCounterAndFailures(t *testing.T) {
	var (
		order  []string
		cycles atomic.Uint64
		th     *Thread
		counts []uint32
		times  []uint32
	)
	boom := errors.New("boom")
	rec := func(name string, fail bool) stepFunc {
		return func() error {
			if len(order) < 6 {
				order = append(order, name)
			}
			if fail && *th.Counter()%2 == 0 {
				return boom
			}
			return nil
		}
	}
	gams := []Step{{"a", rec("a", false)}, {"b", rec("b", true)}}
	brokers := []Step{{"out", stepFunc(func() error {
		if len(counts) < 5 {
			counts = append(counts, *th.Counter())
			times = append(times, *th.Time())
		}
		cycles.Add(1)
		return nil
	})}}
	var err error
	th, err = New(Config{Name: "t", Frequency: 1000}, gams, brokers)
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Stop(); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Stop before Start = %v", err)
	}
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := th.Start(context.Background()); !errors.Is(err, errRunning) {
		t.Fatalf("second Start = %v", err)
	}
	waitCycles(&cycles, 20)
	if err := th.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ""); got != "ababab" {
		t.Errorf("order %q", got)
	}
	s := th.Stats()
	if s.Running || s.Cycles < 20 || s.Steps[0].Name != "a" || s.Steps[2].Name != "out" || th.nGAMs != 2 {
		t.Fatalf("stats %+v", s)
	}
	checkFailures(t, &s, boom)
	checkCounterAndTime(t, counts, times)
	// The Counter signal numbers the deadlines (read after Stop).
	counter := *th.Counter()
	if uint64(counter) != s.Cycles+s.MissedPeriods {
		t.Errorf("Counter %d != cycles %d + missed %d", counter, s.Cycles, s.MissedPeriods)
	}
	// Restart carries on counting.
	runCycles(t, th, &cycles, 3)
	if s2 := th.Stats(); s2.Cycles <= s.Cycles || *th.Counter() <= counter {
		t.Errorf("after restart cycles %d counter %d", s2.Cycles, *th.Counter())
	}
}

// checkFailures checks the statistics of TestRunOrderCounterAndFailures'
// steps: a and the broker never fail, b fails with boom every other cycle.
func checkFailures(t *testing.T, s *Stats, boom error) {
	t.Helper()
	if s.Steps[0].Failures != 0 || s.Steps[1].Failures == 0 || s.Failures != s.Steps[1].Failures {
		t.Errorf("failures: %+v", s.Steps)
	}
	if !errors.Is(s.Steps[1].LastErr, boom) || !errors.Is(s.Err(), boom) || !strings.Contains(s.Err().Error(), `"b"`) {
		t.Errorf("errors: %v / %v", s.Steps[1].LastErr, s.Err())
	}
}

// checkCounterAndTime checks the built-in signals the steps saw in the
// first cycles of a 1 kHz thread: Counter starts at 1 and numbers
// deadlines; Time is Counter × 1000 µs.
func checkCounterAndTime(t *testing.T, counts, times []uint32) {
	t.Helper()
	if counts[0] != 1 {
		t.Errorf("first Counter %d, want 1", counts[0])
	}
	for i := range counts {
		if times[i] != counts[i]*1000 || (i > 0 && counts[i] <= counts[i-1]) {
			t.Errorf("Counter %v Time %v", counts, times)
			break
		}
	}
}

func TestOverrunSkipsPeriods(t *testing.T) {
	var th *Thread
	var cycles atomic.Uint64
	var seen [4]uint32
	slow := stepFunc(func() error {
		n := cycles.Add(1)
		if n <= 4 {
			seen[n-1] = *th.Counter()
		}
		if n == 2 {
			time.Sleep(35 * time.Millisecond) // 3+ periods of 10 ms
		}
		return nil
	})
	log := newCycleLog(1024, 1)
	th, _ = New(Config{Period: 10 * time.Millisecond, Monitor: log.monitor}, []Step{{"slow", slow}}, nil)
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitCycles(&cycles, 4)
	th.Stop()
	s := th.Stats()
	if s.Overruns == 0 || s.MissedPeriods < 3 {
		t.Fatalf("overruns %d missed %d", s.Overruns, s.MissedPeriods)
	}
	if seen[0] != 1 || seen[1] != 2 || seen[2] < 2+1+3 {
		t.Errorf("Counter sequence %v: want 1, 2, then a jump of at least 3 missed periods", seen)
	}
	if c := log.cycles[1]; c.Steps[0] < 35*time.Millisecond || c.Wake+c.Steps[0] < 3*10*time.Millisecond {
		t.Errorf("the slow cycle: %+v", c)
	}
}

// TestSleepFailureIsCounted makes every sleep fail: the thread counts the
// failures, publishes the error, and keeps its deadlines by spinning.
func TestSleepFailureIsCounted(t *testing.T) {
	errSleep := errors.New("sleep refused")
	var cycles atomic.Uint64
	count := stepFunc(func() error { cycles.Add(1); return nil })
	log := newCycleLog(1024, 1)
	th, err := New(Config{Name: "t", Period: 2 * time.Millisecond, Monitor: log.monitor}, []Step{{"count", count}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	th.sleep = func(int64) error { return errSleep }
	runCycles(t, th, &cycles, 5)
	s := th.Stats()
	// One sleep before each cycle but perhaps the first (the stop may
	// come between a cycle and the sleep after it).
	if s.sleepFailures+1 < s.Cycles || s.Cycles < 5 || !errors.Is(s.sleepErr, errSleep) {
		t.Errorf("%d sleep failures in %d cycles, last %v", s.sleepFailures, s.Cycles, s.sleepErr)
	}
	if err := s.Err(); !errors.Is(err, errSleep) || !strings.Contains(err.Error(), "sleeps failed") {
		t.Errorf("Err() = %v", err)
	}
	for _, c := range log.cycles {
		if c.Wake < 0 {
			t.Errorf("a cycle started %v before its deadline", -c.Wake)
		}
	}
}

func TestStopIsPrompt(t *testing.T) {
	for _, n := range []SleepNature{Default, Busy, Hybrid} {
		th, err := New(Config{Name: n.String(), Period: 20 * time.Second, SleepNature: n, SleepPercentage: 50}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := th.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		if err := th.Stop(); err != nil {
			t.Fatal(err)
		}
		// Structural, not a latency check: a 20 s period must not be waited out.
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: Stop took %v", n, d)
		}
	}
}

func TestStartFailsOnBadMask(t *testing.T) {
	all, _ := cpu.OnlineMask()
	if all.Has(63) {
		t.Skip("CPU 63 exists")
	}
	th, _ := New(Config{Frequency: 100, CPUMask: cpu.Of(63), GCOff: true, MemoryLimit: 1 << 40}, nil, nil)
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	if err := th.Start(context.Background()); err == nil {
		th.Stop()
		t.Fatal("pinning to CPU 63 succeeded")
	}
	if after := debug.SetGCPercent(before); after != before {
		t.Errorf("GC percent %d not restored to %d", after, before)
	}
}

func TestGCOffRestored(t *testing.T) {
	th, _ := New(Config{Frequency: 1000, GCOff: true, MemoryLimit: 1 << 30}, nil, nil)
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cur := debug.SetGCPercent(-1); cur != -1 {
		t.Errorf("GC percent %d while running, want -1", cur)
	}
	if lim := debug.SetMemoryLimit(-1); lim != 1<<30 {
		t.Errorf("memory limit %d while running", lim)
	}
	th.Stop()
	if after := debug.SetGCPercent(before); after != before {
		t.Errorf("GC percent %d after Stop, want %d", after, before)
	}
}

// TestGCOffTwoThreads: two threads with GCOff, stopped out of their start
// order, leave the GC as it was before the first started (before, the
// second restored the first's GC-off settings for good); while either
// runs the GC is off, under the smaller limit of those running.
func TestGCOffTwoThreads(t *testing.T) {
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	limitBefore := debug.SetMemoryLimit(-1)
	a, _ := New(Config{Name: "a", Frequency: 1000, GCOff: true, MemoryLimit: 1 << 30}, nil, nil)
	b, _ := New(Config{Name: "b", Frequency: 1000, GCOff: true, MemoryLimit: 1 << 29}, nil, nil)
	for _, th := range []*Thread{a, b} {
		if err := th.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, gc int, limit int64) {
		t.Helper()
		if cur := debug.SetGCPercent(-1); cur != gc {
			t.Errorf("%s: GC percent %d, want %d", when, cur, gc)
		}
		debug.SetGCPercent(gc)
		if cur := debug.SetMemoryLimit(-1); cur != limit {
			t.Errorf("%s: memory limit %d, want %d", when, cur, limit)
		}
	}
	check("both running", -1, 1<<29)
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	check("b running", -1, 1<<29)
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	check("a running again", -1, 1<<30)
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	check("both stopped", before, limitBefore)
}

var sinkStats *Stats

// TestCycleNoAllocs counts every allocation in the process while the RT
// thread runs full cycles (timing, three steps, one failing, stats
// publishing, a monitor) and another goroutine reads its Stats.
func TestCycleNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	var cycles atomic.Uint64
	var sum uint64
	var seen atomic.Int64
	monitor := func(c *Cycle) { seen.Add(int64(c.Wake + c.Steps[0])) }
	var th *Thread
	gam := stepFunc(func() error { sum += uint64(*th.Counter()); return nil })
	fail := stepFunc(func() error { return errTest })
	count := stepFunc(func() error { cycles.Add(1); return nil })
	// At 1 kHz the thread yields its P every 7 cycles; at 5 kHz its slack
	// is under yieldMinSlack and it never does.
	for _, rate := range []struct {
		hz     float64
		cycles uint64
	}{{5000, 5}, {1000, 20}} {
		for _, n := range []SleepNature{Default, Busy, Hybrid} {
			th, _ = New(Config{Frequency: rate.hz, SleepNature: n, SleepPercentage: 50, Monitor: monitor},
				[]Step{{"gam", gam}, {"fail", fail}}, []Step{{"count", count}})
			if err := th.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			WarmThreadPool(8)
			waitCycles(&cycles, 10) // warm up
			st := &Stats{}
			th.ReadStats(st)
			allocs := testing.AllocsPerRun(20, func() {
				waitCycles(&cycles, rate.cycles)
				th.ReadStats(st)
			})
			th.Stop()
			if allocs != 0 {
				t.Errorf("%v Hz %v: %v allocations per %d cycles + ReadStats", rate.hz, n, allocs, rate.cycles)
			}
			if rate.hz == 1000 && st.Yields == 0 && runtime.GOMAXPROCS(0) > 1 {
				t.Errorf("%v Hz %v: no yield", rate.hz, n)
			}
			sinkStats = st
		}
	}
}

var errTest = errors.New("test failure")

func FuzzParseSleepNature(f *testing.F) {
	for n := Default; n <= Hybrid+1; n++ {
		f.Add(n.String())
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSleepNature(s)
		if err != nil {
			return
		}
		if back, err := parseSleepNature(n.String()); err != nil || back != n || !strings.EqualFold(s, n.String()) {
			t.Fatalf("%q -> %v -> %v, %v", s, n, back, err)
		}
	})
}

// TestMisuseThread: every call out of order, twice or with a bad argument
// returns an error and nothing panics; a thread stopped by its context
// starts again.
func TestMisuseThread(t *testing.T) {
	newThread := func(t *testing.T) *Thread {
		th, err := New(Config{Name: "T", Frequency: 1000}, []Step{{Name: "g", Exec: stepFunc(nop)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	cases := []struct {
		name string
		run  func(t *testing.T) error
		want error // errors.Is; testenv.ErrAny for any error
	}{
		{"New with a nil step", func(*testing.T) error {
			_, err := New(Config{Name: "T", Frequency: 1000}, []Step{{Name: "g"}}, nil)
			return err
		}, testenv.ErrAny},
		{"New without a period", func(*testing.T) error {
			_, err := New(Config{Name: "T"}, nil, nil)
			return err
		}, testenv.ErrAny},
		{"New with a priority out of range", func(*testing.T) error {
			_, err := New(Config{Name: "T", Frequency: 1000, Priority: 100}, nil, nil)
			return err
		}, testenv.ErrAny},
		{"Start with a nil context", func(t *testing.T) error {
			var ctx context.Context
			return newThread(t).Start(ctx)
		}, testenv.ErrAny},
		{"Start with a context already cancelled", func(t *testing.T) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return newThread(t).Start(ctx)
		}, context.Canceled},
		{"Start twice", func(t *testing.T) error {
			th := newThread(t)
			if err := th.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer th.Stop()
			return th.Start(context.Background())
		}, errRunning},
		{"Stop before Start", func(t *testing.T) error { return newThread(t).Stop() }, ErrNotRunning},
		{"Stop twice", func(t *testing.T) error {
			th := newThread(t)
			if err := th.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := th.Stop(); err != nil {
				t.Fatal(err)
			}
			return th.Stop()
		}, ErrNotRunning},
		{"Stop after the context stopped it", func(t *testing.T) error {
			th := newThread(t)
			ctx, cancel := context.WithCancel(context.Background())
			if err := th.Start(ctx); err != nil {
				t.Fatal(err)
			}
			cancel()
			testenv.Eventually(t, "the cancelled context to stop the thread", 10*time.Second, func() bool { return !th.Stats().Running })
			err := th.Stop()
			// Stopped by its context, the thread starts again.
			if err := th.Start(context.Background()); err != nil {
				t.Errorf("Start after the context's stop: %v", err)
			}
			th.Stop()
			return err
		}, ErrNotRunning},
	}
	for _, c := range cases {
		testenv.CheckMisuse(t, c.name, c.want, c.run)
	}
}

// TestRestartOutlivesTheOldContext: a Stop that comes right after the
// context of Start is cancelled usually runs before the context's own
// stop; a Start after it must not be stopped by that stop of the run
// before, which used to come a moment later and end the new run. A slow
// machine may only make the test pass without proving anything, never
// fail it falsely.
func TestRestartOutlivesTheOldContext(t *testing.T) {
	th, err := New(Config{Name: "T", Frequency: 1000}, []Step{{Name: "g", Exec: stepFunc(nop)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		if err := th.Start(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := th.Stop(); err != nil && !errors.Is(err, ErrNotRunning) {
			t.Fatal(err)
		}
		if err := th.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		if !th.Stats().Running {
			t.Fatalf("restart %d: stopped by the context of the run before", i)
		}
		if err := th.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNotMadeThread: a nil Thread (a failed New, its error ignored) and a
// zero one refuse Start and Stop with an error and answer the rest with
// zero values, instead of panicking or, for the zero one, starting a
// thread that divides by its zero period.
func TestNotMadeThread(t *testing.T) {
	for name, th := range map[string]*Thread{"nil": nil, "zero": new(Thread)} {
		for range 2 {
			if err := th.Start(context.Background()); !errors.Is(err, errNotMade) {
				t.Errorf("%s: Start: %v", name, err)
			}
			if err := th.Stop(); !errors.Is(err, errNotMade) {
				t.Errorf("%s: Stop: %v", name, err)
			}
		}
		st := Stats{Steps: make([]StepStats, 1)}
		th.ReadStats(&st)
		again := th.Stats()
		if st.Running || st.Cycles != 0 || len(st.Steps) != 0 || st.Err() != nil || again.Err() != nil {
			t.Errorf("%s: stats %+v", name, st)
		}
		if th.ThreadID() != 0 {
			t.Errorf("%s: ThreadID %d", name, th.ThreadID())
		}
	}
	if th := (*Thread)(nil); th.Counter() != nil || th.Time() != nil {
		t.Error("a nil Thread's Counter or Time is not nil")
	}
	new(Thread).ReadStats(nil) // nowhere to write: nothing written
	if err := (*Stats)(nil).Err(); err != nil {
		t.Errorf("nil Stats: %v", err)
	}
}

// TestYields: a thread whose period is under 10 ms gives its P back to the
// Go scheduler about every 8 ms, between cycles, and reports when the
// scheduler gave it back late; a thread with a longer period never does.
func TestYields(t *testing.T) {
	if runtime.GOMAXPROCS(0) == 1 {
		t.Skip("GOMAXPROCS=1: the thread never yields")
	}
	run := func(cfg Config, n uint64) (Stats, []Cycle) {
		t.Helper()
		var cycles atomic.Uint64
		log := newCycleLog(1024, 1)
		cfg.Monitor = log.monitor
		th, err := New(cfg, []Step{{"count", stepFunc(func() error { cycles.Add(1); return nil })}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := th.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitCycles(&cycles, n)
		th.Stop()
		return th.Stats(), log.cycles
	}
	s, cys := run(Config{Frequency: 1000}, 200)
	if periods := s.Cycles + s.MissedPeriods; s.Yields == 0 || s.Yields > periods/7+1 {
		t.Errorf("1 kHz: %d yields in %d periods, want 1 to one per 7", s.Yields, periods)
	}
	for _, c := range cys {
		if c.YieldLate < 0 || c.YieldLate > c.Wake {
			t.Fatalf("cycle %d: YieldLate %v, Wake %v", c.Counter, c.YieldLate, c.Wake)
		}
	}
	if s, _ := run(Config{Period: 10 * time.Millisecond}, 3); s.Yields != 0 {
		t.Errorf("10 ms period: %d yields, want none", s.Yields)
	}
}

// TestYieldPauses: after a yield the scheduler ended past the deadline the
// thread yields no more for a second, then two, up to 64 s for late ones in
// a row; 1024 yields in time start the pauses again from a second.
func TestYieldPauses(t *testing.T) {
	const ms = int64(time.Millisecond)
	y := yielder{on: true}
	now := 100 * ms
	if !y.due(now, now+ms) || y.due(now, now+ms/10) {
		t.Fatal("due: a yield needs 200 µs before the deadline")
	}
	if late := y.back(now, now+ms); late != 0 || y.due(now+6*ms, now+7*ms) || !y.due(now+7*ms, now+8*ms) {
		t.Fatalf("in time: late %d, due again when the next deadline is 8 ms after it", late)
	}
	// A 6 ms period: the next chance would be 12 ms after, over the
	// runtime's 10 ms: the thread yields at every cycle.
	if !y.due(now+6*ms, now+12*ms) {
		t.Fatal("6 ms period: not due after one period")
	}
	for i, pause := range []int64{1000, 2000, 4000, 8000, 16000, 32000, 64000, 64000} {
		now += 100_000 * ms
		if late := y.back(now, now-3*ms); late != 3*ms {
			t.Fatalf("late yield %d: late %d", i, late)
		}
		if y.due(now+pause*ms-1, now+pause*ms+ms) || !y.due(now+pause*ms, now+pause*ms+ms) {
			t.Fatalf("late yield %d: the pause is not %d ms", i, pause)
		}
	}
	for range yieldCalm {
		now += 10 * ms
		y.back(now, now+ms)
	}
	now += 100_000 * ms
	y.back(now, now-ms)
	if y.due(now+999*ms, now+1001*ms) || !y.due(now+1000*ms, now+1001*ms) {
		t.Fatal("after 1024 yields in time the pause is not a second again")
	}
	if (&yielder{}).due(now, now+ms) {
		t.Error("off: due")
	}
}

// TestPeriodErrors: a Frequency or Period out of range is named with the
// value given and the range allowed.
func TestPeriodErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "rt: set Frequency or Period"},
		{Config{Period: -time.Millisecond}, "rt: Period -1ms out of range 1µs..1h0m0s"},
		{Config{Period: 2 * time.Hour}, "rt: Period 2h0m0s out of range"},
		{Config{Frequency: 1e12}, "rt: Frequency 1e+12 Hz gives a period of 0s, out of range 1µs..1h0m0s"},
		{Config{Frequency: 2e9}, "rt: Frequency 2e+09 Hz gives a period of 1ns, out of range"},
		{Config{Frequency: -5}, "rt: Frequency -5 Hz is not a positive number"},
		{Config{Frequency: 1e-12}, "rt: Frequency 1e-12 Hz gives a period of 1e+12 s, out of range 1µs..1h0m0s"},
		{Config{Frequency: 1e-4}, "rt: Frequency 0.0001 Hz gives a period of 1e+04 s, out of range"},
	} {
		if _, err := c.cfg.period(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if p, err := (&Config{Frequency: 1000}).period(); err != nil || p != time.Millisecond {
		t.Errorf("1 kHz: %v %v", p, err)
	}
}

// countingStep counts its cycles.
type countingStep struct{ n int }

func (c *countingStep) Execute() error { c.n++; return nil }

// TestUnnamedThread: a thread whose Config has no Name is named RTThread in
// its errors and Stats.
func TestUnnamedThread(t *testing.T) {
	th, err := New(Config{Frequency: 1000}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := th.Start(ctx); err == nil || err.Error() != "rt: RTThread: Start: context canceled" {
		t.Errorf("Start with a cancelled context: %v", err)
	}
	if st := th.Stats(); st.name != "RTThread" {
		t.Errorf("Stats name %q", st.name)
	}
}
