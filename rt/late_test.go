package rt

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// TestLateCyclesOverrun runs a thread whose second step blocks for four
// periods every tenth cycle: those cycles are stamped as overruns naming
// that step, with the periods they skipped, and drained + lost counts
// every overrun the thread counted (a loaded machine adds overruns of its
// own: a wake-up late by more than a period).
func TestLateCyclesOverrun(t *testing.T) {
	var cycles atomic.Uint64
	var th *Thread
	quick := stepFunc(func() error { return nil })
	slow := stepFunc(func() error {
		if cycles.Add(1)%10 == 0 {
			time.Sleep(4 * th.Period())
		}
		return nil
	})
	// A threshold of an hour: only the overruns are stamped.
	th, err := New(Config{Name: "T", Frequency: 1000, LateThreshold: time.Hour}, []Step{{"quick", quick}, {"slow", slow}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if th.LateThreshold() != time.Hour {
		t.Fatalf("LateThreshold %v", th.LateThreshold())
	}
	before := cpu.Now()
	runCycles(t, th, &cycles, 45)
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
	if !testenv.Portable && th.ThreadID() == 0 {
		t.Error("no thread id recorded")
	}
}

// TestLateCyclesThreshold: with a threshold of 1 ns nearly every wake-up
// is late, and each stamped cycle woke after its deadline.
func TestLateCyclesThreshold(t *testing.T) {
	var cycles atomic.Uint64
	count := stepFunc(func() error { cycles.Add(1); return nil })
	th, err := New(Config{Name: "T", Frequency: 2000, LateThreshold: time.Nanosecond}, []Step{{"count", count}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runCycles(t, th, &cycles, 20)
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
	if d, _ := New(Config{Frequency: 1000}, nil, nil); d.LateThreshold() != 500*time.Microsecond {
		t.Errorf("default threshold %v", d.LateThreshold())
	}
	if _, err := New(Config{Frequency: 1000, LateThreshold: -1}, nil, nil); err == nil {
		t.Error("a negative LateThreshold accepted")
	}
}

func TestDrainLateCyclesNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	th, _ := New(Config{Frequency: 1000}, nil, nil)
	dst := make([]LateCycle, 8)
	if n := testing.AllocsPerRun(100, func() { th.DrainLateCycles(dst) }); n != 0 {
		t.Fatalf("DrainLateCycles allocates %v times", n)
	}
}
