package forensics

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

const ms1 = int64(time.Millisecond)

func TestAttribute(t *testing.T) {
	sp := span{from: 100 * ms1, to: 110 * ms1} // 10 ms to explain
	known := func(e Evidence) *counts { e.ThreadKnown = true; return &counts{Evidence: e} }
	asleep := span{from: sp.from, to: sp.to, asleep: true}
	overran := span{from: sp.from, to: sp.to, overran: true, steps: 10 * ms1}
	lateAndOverran := span{from: sp.from, to: sp.to, asleep: true, overran: true, steps: 1000}
	for _, c := range []struct {
		name   string
		sp     span
		c      *counts
		fifo   bool
		budget float64
		want   Cause
	}{
		{"nothing", sp, known(Evidence{}), false, 0.95, Unknown},
		{"steal", sp, known(Evidence{Steal: 10 * time.Millisecond}), false, 0.95, Steal},
		{"too little steal", sp, known(Evidence{Steal: 4 * time.Millisecond}), false, 0.95, Unknown},
		{"waited", sp, known(Evidence{Wait: 9 * time.Millisecond, InvoluntarySwitches: 3}), false, 0.95, Preempted},
		// A tie: the wait, counted in ns, wins over steal, counted in 10 ms ticks.
		{"waited and stolen", sp, known(Evidence{Wait: 10 * time.Millisecond, Steal: 10 * time.Millisecond}), false, 0.95, Preempted},
		{"more steal than wait", sp, known(Evidence{Wait: 2 * time.Millisecond, Steal: 10 * time.Millisecond}), false, 0.95, Steal},
		// Together they account for half of it: the larger names it.
		{"a little of each", sp, known(Evidence{Wait: 2 * time.Millisecond, GoPause: 3 * time.Millisecond}), false, 0.95, GoPause},
		{"go pause", sp, known(Evidence{GoPause: 8 * time.Millisecond, GoPauses: 1}), false, 0.95, GoPause},
		{"page faults", sp, known(Evidence{MinorFaults: 4096}), false, 0.95, PageFaults},
		{"a major fault", sp, known(Evidence{MajorFaults: 20}), false, 0.95, PageFaults},
		{"a few faults", sp, known(Evidence{MinorFaults: 10}), false, 0.95, Unknown},
		{"fifo waited, budget left", sp, &counts{Evidence: Evidence{Wait: 9 * time.Millisecond, ThreadKnown: true}, runShare: 0.3}, true, 0.95, Preempted},
		{"fifo waited, budget spent", sp, &counts{Evidence: Evidence{Wait: 9 * time.Millisecond, ThreadKnown: true}, runShare: 0.9}, true, 0.95, RTThrottling},
		{"fifo, no throttling", sp, &counts{Evidence: Evidence{Wait: 9 * time.Millisecond, ThreadKnown: true}, runShare: 1}, true, 0, Preempted},
		// A late wake-up, split by the thread's own counts.
		{"asleep, nothing counted", asleep, known(Evidence{Wait: time.Millisecond}), false, 0.95, CPUUnavailable},
		{"asleep, waited some", asleep, known(Evidence{Wait: 3 * time.Millisecond}), false, 0.95, CPUUnavailable},
		{"asleep, waited most", asleep, known(Evidence{Wait: 6 * time.Millisecond}), false, 0.95, Preempted},
		{"asleep, stolen", asleep, known(Evidence{Steal: 10 * time.Millisecond}), false, 0.95, Steal},
		// A block may have been anywhere in the window (traced: in the
		// steps, after the stamp): it names nothing by itself.
		{"asleep, blocked", asleep, known(Evidence{Blocked: 1}), false, 0.95, CPUUnavailable},
		{"asleep, yield back late", asleep, known(Evidence{Blocked: 1, YieldLate: 6 * time.Millisecond}), false, 0.95, GoScheduler},
		{"asleep, blocked in a short pause", asleep, known(Evidence{Blocked: 1, GoPauses: 2, GoPause: 100 * time.Microsecond}), false, 0.95, GoPause},
		{"asleep, blocked, stolen", asleep, known(Evidence{Blocked: 1, Steal: 100 * time.Millisecond}), false, 0.95, Steal},
		{"asleep, charged CPU and blocked", asleep, known(Evidence{Blocked: 1, ExtraRun: 3 * time.Millisecond, Wait: 4 * time.Millisecond}), false, 0.95, CPUUnavailable},
		// CPU charged while it woke, beyond a cycle's: the kernel's
		// (interrupts, the host's exits); Go does not spin a goroutine
		// out of its sleep (a traced late wake-up spent it all in the
		// sleep's system call).
		{"asleep, charged CPU", asleep, known(Evidence{ExtraRun: 8 * time.Millisecond}), false, 0.95, CPUUnavailable},
		{"asleep, thread unknown", asleep, &counts{}, false, 0.95, Unknown},
		// An overrun: the CPU it used beyond a usual cycle is its work.
		{"overran, ran", overran, known(Evidence{ExtraRun: 9 * time.Millisecond}), false, 0.95, Work},
		{"overran, faulted", overran, known(Evidence{ExtraRun: 9 * time.Millisecond, MinorFaults: 3000}), false, 0.95, PageFaults},
		{"woke late, charged CPU, then overran", lateAndOverran, known(Evidence{ExtraRun: 9 * time.Millisecond}), false, 0.95, CPUUnavailable},
		{"overran, not running", overran, known(Evidence{ExtraRun: time.Millisecond}), false, 0.95, CPUUnavailable},
		{"network thread busy", span{from: sp.from, to: sp.to, busy: 9 * ms1}, &counts{}, false, 0.95, Work},
		{"network thread busy a little", span{from: sp.from, to: sp.to, busy: 2 * ms1}, &counts{}, false, 0.95, Unknown},
	} {
		if got := attribute(c.sp, c.c, c.fifo, c.budget); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// recordedMonitor is a Monitor watching an RT thread pinned to CPU 1,
// whose history holds a sample of each of stats at the times given, with
// the thread's own counts in threads (nil: unreadable).
func recordedMonitor(t *testing.T, at []int64, stats []string, threads []*threadSample) (*Monitor, *watch) {
	t.Helper()
	th, err := cycles.New(rt.Config{Name: "RT1", Frequency: 1000, CPUMask: cpu.Of(1)}, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{})
	m.WatchThread(th, nil, false)
	w := m.watches[0]
	w.mask = cpu.Of(1)
	m.hist = newHistory(8, 2, 1)
	for i := range at {
		s := m.hist.next()
		s.at = at[i]
		var steal [maxCPUs]int64
		s.stealOK = parseCPUSteal(readTestdata(t, stats[i]), &steal)
		copy(s.steal, steal[:2])
		s.threads[0] = threadSample{cpu: -1}
		if threads[i] != nil {
			s.threads[0] = *threads[i]
		}
	}
	m.lastNow, m.lastAt = at[len(at)-1], time.Now()
	return m, w
}

// TestStealFromRecordedProc: steal cannot be caused on purpose, so the
// samples come from recorded /proc/stat files: 810 ms of steal on CPU 1
// between two samples explains a 9 ms late wake-up of a thread pinned
// there, and the event, its log line and /status say so.
func TestStealFromRecordedProc(t *testing.T) {
	th := &threadSample{ok: true, tid: 7, cpu: 1}
	m, w := recordedMonitor(t, []int64{0, 20 * ms1}, []string{"stat-before.txt", "stat-after.txt"}, []*threadSample{th, th})
	lc := cycles.LateCycle{Counter: 42, Deadline: 5 * ms1, Wake: 9 * time.Millisecond, End: 9*time.Millisecond + 3000, Step: -1}
	p := w.lateEvent(&lc)
	m.attribute(0, w, &p)
	evs := m.Events("RT1")
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	ev := evs[0]
	if ev.Cause != Steal || ev.Evidence.CPU != 1 || ev.Evidence.Steal != 810*time.Millisecond || ev.Late != 9*time.Millisecond || ev.Counter != 42 {
		t.Fatalf("%+v", ev)
	}
	if got := ev.Explain(); got != "hypervisor steal 810.0 ms on CPU 1" {
		t.Errorf("Explain: %q", got)
	}
	if n := m.Counts("RT1"); n[Steal] != 1 || n[Unknown] != 0 {
		t.Errorf("counts %v", n)
	}
	st := m.Status()
	if len(st.Threads) != 1 || st.Threads[0].Causes["steal"] != 1 || len(st.Threads[0].Worst) != 1 || st.Threads[0].Worst[0].Evidence.StealUs != 810000 {
		t.Errorf("status %+v", st)
	}
	var log strings.Builder
	m.cfg.Log = newTextLog(&log)
	m.maybeLog(w, 30*ms1)
	if !strings.Contains(log.String(), "RT1: 1 late cycle, worst 9.0 ms: hypervisor steal 810.0 ms on CPU 1") {
		t.Errorf("log: %s", log.String())
	}
	// Within the second, nothing more is logged.
	w.logN = 3
	log.Reset()
	m.maybeLog(w, 40*ms1)
	if log.Len() != 0 {
		t.Errorf("logged twice in a second: %s", log.String())
	}
}

// TestNoStealNoCause: the same late wake-up between two samples of the
// same /proc/stat, with the thread's counts unreadable, has no cause.
func TestNoStealNoCause(t *testing.T) {
	m, w := recordedMonitor(t, []int64{0, 20 * ms1}, []string{"stat-before.txt", "stat-before.txt"}, []*threadSample{nil, nil})
	lc := cycles.LateCycle{Deadline: 5 * ms1, Wake: 9 * time.Millisecond, End: 9 * time.Millisecond, Step: -1}
	p := w.lateEvent(&lc)
	m.attribute(0, w, &p)
	ev := m.Events("RT1")[0]
	if ev.Cause != Unknown || ev.Evidence.ThreadKnown {
		t.Fatalf("%+v", ev)
	}
	if !strings.Contains(ev.Explain(), "no cause found") {
		t.Errorf("Explain: %q", ev.Explain())
	}
}

func TestEnclose(t *testing.T) {
	h := newHistory(4, 1, 0)
	for _, at := range []int64{10, 20, 30, 40, 50} { // 10 drops out
		h.next().at = at
	}
	for _, c := range []struct {
		from, to int64
		i0, i1   int
	}{
		{25, 27, 0, 1}, {20, 30, 0, 1}, {5, 100, 0, 3}, {45, 60, 2, 3}, {60, 70, 2, 3}, {0, 5, 0, 1},
	} {
		i0, i1, ok := h.enclose(c.from, c.to)
		if !ok || i0 != c.i0 || i1 != c.i1 {
			t.Errorf("enclose(%d, %d) = %d, %d, %v; want %d, %d", c.from, c.to, i0, i1, ok, c.i0, c.i1)
		}
	}
}

func newTextLog(w *strings.Builder) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestRuntimeStall: the spans in which the monitor's sleep had ended and
// the runtime had not run it yet, beyond stallSlack, count as far as they
// fall in the event.
func TestRuntimeStall(t *testing.T) {
	h := newHistory(8, 1, 0)
	for _, s := range [][2]int64{{0, 0}, {10 * ms1, ms1 / 5}, {32 * ms1, 12 * ms1}, {42 * ms1, 0}} {
		n := h.next()
		n.at, n.behind = s[0], s[1]
	}
	slack := int64(stallSlack)
	for _, c := range []struct {
		i0, i1   int
		from, to int64
		want     int64
	}{
		{1, 3, 15 * ms1, 30 * ms1, 30*ms1 - (20*ms1 + slack)}, // the stall, cut at the event's end
		{0, 3, 0, 42 * ms1, 12*ms1 - slack},                   // all of it; 0.2 ms late is a timer's usual
		{0, 1, 0, 10 * ms1, 0},                                // before it
		{2, 3, 33 * ms1, 40 * ms1, 0},                         // after it
	} {
		if got := h.runtimeStall(c.i0, c.i1, c.from, c.to); got != c.want {
			t.Errorf("runtimeStall(%d, %d, %d, %d) = %d, want %d", c.i0, c.i1, c.from, c.to, got, c.want)
		}
	}
}

// TestExplainRuntimeStall: a thread held in the runtime while the runtime
// did not run the monitor either is said to have been, for how long.
func TestExplainRuntimeStall(t *testing.T) {
	ev := Event{Cause: GoScheduler, Late: 9 * time.Millisecond, Evidence: Evidence{CPU: 1, Blocked: 2, RuntimeStall: 9500 * time.Microsecond}}
	if got := ev.Explain(); !strings.HasSuffix(got, "a thread the kernel was not running held); the monitor's goroutine was not run either for 9.5 ms") {
		t.Errorf("blocked: %q", got)
	}
	ev.Evidence.RuntimeStall = 0
	if got := ev.Explain(); strings.Contains(got, "monitor") {
		t.Errorf("no stall: %q", got)
	}
}

// TestExplainChargedCPU: a late wake-up charged CPU it could not use says
// how much, and that the kernel charged it.
func TestExplainChargedCPU(t *testing.T) {
	ev := Event{Cause: CPUUnavailable, Late: 2300 * time.Microsecond, Evidence: Evidence{CPU: 1, ExtraRun: 137 * time.Microsecond}}
	if got, want := ev.Explain(), "CPU 1 was not there to run it for 2.3 ms: not waiting for it, not held by Go, charged 137 µs of CPU beyond a usual cycle by the kernel (steal on it in the last second: 0 µs, counted in 10 ms ticks)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	ev.Evidence.ExtraRun = 0
	if got := ev.Explain(); !strings.Contains(got, "neither running, nor waiting, nor held by Go") {
		t.Errorf("not charged: %q", got)
	}
}

// TestExplainYieldLate: a cycle made late by the thread's own yield of its
// P says so, with how late the scheduler gave it back.
func TestExplainYieldLate(t *testing.T) {
	ev := Event{Cause: GoScheduler, Late: 3 * time.Millisecond, Evidence: Evidence{CPU: 1, Blocked: 1, YieldLate: 2500 * time.Microsecond}}
	if got := ev.Explain(); !strings.Contains(got, "gave it back 2.5 ms after the deadline when it yielded its P") {
		t.Errorf("%q", got)
	}
	if got := attribute(span{from: 0, to: int64(3 * time.Millisecond), asleep: true}, &counts{Evidence: Evidence{ThreadKnown: true, Blocked: 1, YieldLate: 2500 * time.Microsecond}}, true, 0.95); got != GoScheduler {
		t.Errorf("attributed to %v", got)
	}
}

// TestMatchCounts: an RT thread that runs a cycle and sleeps between the
// read of its switches and the read of its counts (it preempted the
// monitor there) must not show a block: the counts are read again with
// the switches after them. A thread that never stops switching leaves
// them unmatched, and the window is not searched for blocks.
func TestMatchCounts(t *testing.T) {
	// The thread: cycles counted before each sleep's switch.
	var cyclesRun, vcsw uint64 = 100, 105
	runCycle := func() { cyclesRun++; vcsw++ }
	at := func(vol uint64) threadSample { return threadSample{ok: true, vcsw: vol, cycles: cyclesRun} }

	// Without matching: the first sample's counts are read after a cycle
	// the switches missed, and the window shows a block.
	a := at(vcsw)
	runCycle()
	a.cycles = cyclesRun
	runCycle()
	b := at(vcsw)
	if blocked := (b.vcsw - a.vcsw) - (b.cycles - a.cycles); blocked != 1 {
		t.Fatalf("the race shows %d blocks without matching, want 1", blocked)
	}

	// Matched: the switches are read again after the counts.
	a = threadSample{ok: true, vcsw: vcsw}
	reads := 0
	ok := matchCounts(&a, func() (uint64, uint64) {
		if reads == 0 {
			runCycle() // the thread runs its cycle before the counts are read
		}
		reads++
		return cyclesRun, 0
	}, func() (uint64, uint64, bool) { return vcsw, 0, true })
	if !ok || reads != 2 {
		t.Fatalf("matched %v after %d reads, want true after 2", ok, reads)
	}
	runCycle()
	b = at(vcsw)
	b.countsMatch = true
	a.countsMatch = ok
	if blocked := (b.vcsw - a.vcsw) - (b.cycles - a.cycles); blocked != 0 {
		t.Errorf("matched counts show %d blocks", blocked)
	}

	// A thread that switches at every read: unmatched.
	c := threadSample{ok: true, vcsw: vcsw}
	if matchCounts(&c, func() (uint64, uint64) { runCycle(); return cyclesRun, 0 }, func() (uint64, uint64, bool) { return vcsw, 0, true }) {
		t.Error("counts matched with a switch between every read")
	}
}

// TestBlockedNeedsMatchedCounts: a switch beyond the thread's sleeps and
// yields is counted only when both samples read the counts matched with
// the switches; either way it does not name the cause.
func TestBlockedNeedsMatchedCounts(t *testing.T) {
	for _, match := range []bool{true, false} {
		a := &threadSample{ok: true, tid: 7, cpu: 1, vcsw: 100, cycles: 50, countsMatch: true}
		b := &threadSample{ok: true, tid: 7, cpu: 1, vcsw: 121, cycles: 70, countsMatch: match}
		m, w := recordedMonitor(t, []int64{0, 20 * ms1}, []string{"stat-before.txt", "stat-before.txt"}, []*threadSample{a, b})
		lc := cycles.LateCycle{Deadline: 5 * ms1, Wake: 2 * time.Millisecond, End: 2 * time.Millisecond, Step: -1}
		p := w.lateEvent(&lc)
		m.attribute(0, w, &p)
		ev := m.Events("RT1")[0]
		blocked := uint64(0)
		if match {
			blocked = 1
		}
		if ev.Cause != CPUUnavailable || ev.Evidence.Blocked != blocked {
			t.Errorf("counts matched %v: %v, blocked %d; want %v, %d", match, ev.Cause, ev.Evidence.Blocked, CPUUnavailable, blocked)
		}
	}
}

// TestYieldLateNamesGoScheduler: a late cycle whose stamp says the yield
// before it came back after the deadline is put down to the Go runtime
// through the monitor, the yield counted as a block, and says how late.
func TestYieldLateNamesGoScheduler(t *testing.T) {
	th := &threadSample{ok: true, tid: 7, cpu: 1, vcsw: 100, cycles: 50, countsMatch: true}
	th2 := &threadSample{ok: true, tid: 7, cpu: 1, vcsw: 120, cycles: 70, countsMatch: true}
	m, w := recordedMonitor(t, []int64{0, 20 * ms1}, []string{"stat-before.txt", "stat-before.txt"}, []*threadSample{th, th2})
	lc := cycles.LateCycle{Deadline: 5 * ms1, Wake: 3 * time.Millisecond, End: 3 * time.Millisecond, Step: -1, YieldLate: 2500 * time.Microsecond}
	p := w.lateEvent(&lc)
	m.attribute(0, w, &p)
	ev := m.Events("RT1")[0]
	if ev.Cause != GoScheduler || ev.Evidence.Blocked != 1 || ev.Evidence.YieldLate != 2500*time.Microsecond {
		t.Fatalf("%v, evidence %+v", ev.Cause, ev.Evidence)
	}
	if !strings.Contains(ev.Explain(), "gave it back 2.5 ms after the deadline") {
		t.Errorf("%q", ev.Explain())
	}
}

// TestExplainPreemptedFIFO: a SCHED_FIFO thread that waited for its CPU
// without being switched out waited between its wake-up and its first
// instruction, and the explanation names what can hold it there; one
// switched out, or under normal scheduling, says only that it waited.
func TestExplainPreemptedFIFO(t *testing.T) {
	ev := Event{Cause: Preempted, Late: time.Millisecond, Evidence: Evidence{CPU: 1, Wait: 931 * time.Microsecond, ThreadKnown: true, FIFO: true}}
	if got, want := ev.Explain(), "preempted: waited 931 µs for CPU 1 after it woke, at SCHED_FIFO: the host stopping the CPU (steal is counted in 10 ms ticks) or kernel code that could not be preempted"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if st := ev.Status(); !st.Evidence.FIFO || st.Explanation != ev.Explain() {
		t.Errorf("/status: fifo %v, %q", st.Evidence.FIFO, st.Explanation)
	}
	ev.Evidence.InvoluntarySwitches = 1
	if got := ev.Explain(); got != "preempted: waited 931 µs for CPU 1 (1 involuntary switches)" {
		t.Errorf("switched out: %q", got)
	}
	ev.Evidence.InvoluntarySwitches, ev.Evidence.FIFO = 0, false
	if got := ev.Explain(); got != "preempted: waited 931 µs for CPU 1" {
		t.Errorf("normal scheduling: %q", got)
	}
}
