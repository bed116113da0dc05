package cycles

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// stepFunc makes a test's closure a step.
type stepFunc func() error

func (f stepFunc) Execute() error { return f() }

// run starts th, waits until cycles has grown by n and stops it.
func run(t *testing.T, th *Thread, cycles *atomic.Uint64, n uint64) {
	t.Helper()
	target := cycles.Load() + n
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for cycles.Load() < target {
		time.Sleep(200 * time.Microsecond)
	}
	if err := th.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestDrainTimings runs a thread whose first step spins 200 µs: every
// cycle drained carries a lateness of at least 0, a cycle time (but the
// first) and that step's time of at least 200 µs, and the cycles drained
// plus lost are the cycles run. Its Summary agrees.
func TestDrainTimings(t *testing.T) {
	var cycles atomic.Uint64
	slow := stepFunc(func() error {
		for t0 := time.Now(); time.Since(t0) < 200*time.Microsecond; {
		}
		return nil
	})
	count := stepFunc(func() error { cycles.Add(1); return nil })
	th, err := New(rt.Config{Name: "T", Frequency: 1000}, []rt.Step{{Name: "slow", Exec: slow}}, []rt.Step{{Name: "count", Exec: count}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if th.TimingWidth() != TimingSteps+2 || th.Name() != "T" || th.Period() != time.Millisecond || th.LateThreshold() != 500*time.Microsecond {
		t.Fatalf("width %d, name %q, period %v, threshold %v", th.TimingWidth(), th.Name(), th.Period(), th.LateThreshold())
	}
	run(t, th, &cycles, 50)
	w := th.TimingWidth()
	dst := make([]int64, 16*w) // drained in several calls
	sum := NewSummary(2)
	var got, lost uint64
	for {
		n, l := th.DrainTimings(dst)
		lost += l
		for i := range n {
			row := dst[i*w : (i+1)*w]
			if row[TimingLateness] < 0 || row[TimingSteps] < int64(200*time.Microsecond) || row[TimingSteps+1] <= 0 {
				t.Errorf("cycle %d: %v", got, row)
			}
			if got > 0 && row[TimingCycle] <= 0 {
				t.Errorf("cycle %d: cycle time %d", got, row[TimingCycle])
			}
			sum.Add(row)
			got++
		}
		if n == 0 {
			break
		}
	}
	if st := th.Stats(); got+lost != st.Cycles || got == 0 {
		t.Errorf("drained %d + lost %d, ran %d", got, lost, st.Cycles)
	}
	var hist uint64
	for _, h := range sum.LatencyHist {
		hist += h
	}
	if sum.Cycles != got || hist != got || sum.MinCycle <= 0 || sum.MaxCycle < sum.MinCycle || sum.MaxLatency < sum.MinLatency ||
		sum.MaxBusy < 200*time.Microsecond || sum.Steps[0].Max < 200*time.Microsecond || sum.Steps[0].Total < time.Duration(got)*200*time.Microsecond {
		t.Errorf("summary of %d rows: %+v", got, sum)
	}
	if q := sum.LatencyQuantile(0.5); q <= 0 || q > max(sum.MaxLatency, LatencyBuckets[len(LatencyBuckets)-1]) {
		t.Errorf("p50 %v, max %v", q, sum.MaxLatency)
	}
}

// TestLateCyclesOverrun runs a thread whose second step blocks for four
// periods every tenth cycle: those cycles are stamped as overruns naming
// that step, with the periods they skipped, and drained + lost counts
// every overrun the thread counted (a loaded machine adds overruns of its
// own: a wake-up late by more than a period).
func TestLateCyclesOverrun(t *testing.T) {
	var cycles atomic.Uint64
	quick := stepFunc(func() error { return nil })
	slow := stepFunc(func() error {
		if cycles.Add(1)%10 == 0 {
			time.Sleep(4 * time.Millisecond)
		}
		return nil
	})
	// A threshold of an hour: only the overruns are stamped.
	th, err := New(rt.Config{Name: "T", Frequency: 1000}, []rt.Step{{Name: "quick", Exec: quick}, {Name: "slow", Exec: slow}}, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	before := cpu.Now()
	run(t, th, &cycles, 45)
	dst := make([]LateCycle, 2) // drained in several calls
	var got, lost, named uint64
	for {
		n, l := th.DrainLateCycles(dst)
		lost += l
		for _, lc := range dst[:n] {
			if lc.Missed == 0 || lc.End < lc.StepTime || lc.Deadline < before {
				t.Errorf("overrun %d: %+v", got, lc)
			}
			if lc.Step == 1 && lc.StepTime >= 4*time.Millisecond && lc.Missed >= 3 {
				named++
			}
			got++
		}
		if n == 0 {
			break
		}
	}
	if st := th.Stats(); got+lost != st.Overruns || named == 0 {
		t.Errorf("drained %d (%d naming the slow step) + lost %d, %d overruns", got, named, lost, st.Overruns)
	}
}

// TestLateCyclesThreshold: with a threshold of 1 ns nearly every wake-up
// is late, and each stamped cycle woke after its deadline.
func TestLateCyclesThreshold(t *testing.T) {
	var cycles atomic.Uint64
	count := stepFunc(func() error { cycles.Add(1); return nil })
	th, err := New(rt.Config{Name: "T", Frequency: 2000}, []rt.Step{{Name: "count", Exec: count}}, nil, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	run(t, th, &cycles, 20)
	dst := make([]LateCycle, 64)
	n, _ := th.DrainLateCycles(dst)
	if n == 0 {
		t.Fatal("no late cycle stamped at a 1 ns threshold")
	}
	for _, lc := range dst[:n] {
		if lc.Wake <= 0 && lc.Missed == 0 {
			t.Errorf("stamped a cycle on time: %+v", lc)
		}
	}
	if _, err := New(rt.Config{Frequency: 1000}, nil, nil, -1); err == nil {
		t.Error("a negative LateThreshold accepted")
	}
	if _, err := New(rt.Config{}, nil, nil, 0); err == nil {
		t.Error("a thread without a period accepted")
	}
}

// TestRecordNoAllocs: while the thread runs with every cycle late (a 1 ns
// threshold) and both rings are drained, nothing in the process
// allocates.
func TestRecordNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	var cycles atomic.Uint64
	count := stepFunc(func() error { cycles.Add(1); return nil })
	th, err := New(rt.Config{Frequency: 5000}, []rt.Step{{Name: "count", Exec: count}}, nil, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int64, 64*th.TimingWidth())
	late := make([]LateCycle, 64)
	sum := NewSummary(1)
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer th.Stop()
	rt.WarmThreadPool(8)
	wait := func(n uint64) {
		for target := cycles.Load() + n; cycles.Load() < target; {
			time.Sleep(200 * time.Microsecond)
		}
	}
	wait(10) // warm up
	var copied Summary
	sum.CopyTo(&copied)
	allocs := testing.AllocsPerRun(20, func() {
		wait(5)
		n, _ := th.DrainTimings(rows)
		for i := range n {
			sum.Add(rows[i*th.TimingWidth() : (i+1)*th.TimingWidth()])
		}
		th.DrainLateCycles(late)
		sum.CopyTo(&copied)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 5 cycles + draining both rings", allocs)
	}
}
