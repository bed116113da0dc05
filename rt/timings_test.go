package rt

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestDrainTimings runs a thread whose first step spins 200 µs: every
// cycle drained carries a lateness of at least 0, a cycle time (but the
// first) and that step's time of at least 200 µs, and the cycles drained
// plus lost are the cycles run.
func TestDrainTimings(t *testing.T) {
	var cycles atomic.Uint64
	slow := stepFunc(func() error {
		for t0 := time.Now(); time.Since(t0) < 200*time.Microsecond; {
		}
		return nil
	})
	count := stepFunc(func() error { cycles.Add(1); return nil })
	th, err := New(Config{Name: "T", Frequency: 1000, RecordTimings: true}, []Step{{"slow", slow}}, []Step{{"count", count}})
	if err != nil {
		t.Fatal(err)
	}
	if th.TimingWidth() != TimingSteps+2 {
		t.Fatalf("width %d", th.TimingWidth())
	}
	runCycles(t, th, &cycles, 50)
	w := th.TimingWidth()
	dst := make([]int64, 16*w) // drained in several calls
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
			got++
		}
		if n == 0 {
			break
		}
	}
	if st := th.Stats(); got+lost != st.Cycles || got == 0 {
		t.Errorf("drained %d + lost %d, ran %d", got, lost, st.Cycles)
	}
	off, _ := New(Config{Frequency: 1000}, nil, nil)
	if n, l := off.DrainTimings(dst); n != 0 || l != 0 {
		t.Error("a thread without RecordTimings returned timings")
	}
}
