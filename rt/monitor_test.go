package rt

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// cycleLog is a Config.Monitor for tests: it keeps the first cycles it is
// given in preallocated memory. Read it after Stop.
type cycleLog struct {
	cycles []Cycle
	steps  [][]time.Duration
	calls  uint64
}

func newCycleLog(n, steps int) *cycleLog {
	l := &cycleLog{cycles: make([]Cycle, 0, n), steps: make([][]time.Duration, n)}
	for i := range l.steps {
		l.steps[i] = make([]time.Duration, steps)
	}
	return l
}

func (l *cycleLog) monitor(c *Cycle) {
	l.calls++
	if i := len(l.cycles); i < cap(l.cycles) {
		copy(l.steps[i], c.Steps)
		l.cycles = append(l.cycles, *c)
		l.cycles[i].Steps = l.steps[i]
	}
}

// TestMonitorSeesEveryCycle runs a thread whose first step spins 200 µs:
// the monitor is called once per cycle, with the Counter numbering the
// deadlines, a deadline on cpu.Now's clock, a wake-up at or after it, that
// step's time, the other's, and a cycle time from wake-up to wake-up but
// for the first cycle.
func TestMonitorSeesEveryCycle(t *testing.T) {
	var cycles atomic.Uint64
	slow := stepFunc(func() error {
		for t0 := time.Now(); time.Since(t0) < 200*time.Microsecond; {
		}
		return nil
	})
	count := stepFunc(func() error { cycles.Add(1); return nil })
	log := newCycleLog(64, 2)
	th, err := New(Config{Name: "T", Frequency: 1000, Monitor: log.monitor}, []Step{{"slow", slow}}, []Step{{"count", count}})
	if err != nil {
		t.Fatal(err)
	}
	before := cpu.Now()
	runCycles(t, th, &cycles, 50)
	st := th.Stats()
	if log.calls != st.Cycles || len(log.cycles) < 50 {
		t.Fatalf("monitor called %d times, kept %d, in %d cycles", log.calls, len(log.cycles), st.Cycles)
	}
	for i, c := range log.cycles {
		if c.Deadline < before || c.Wake < 0 || c.Steps[0] < 200*time.Microsecond || c.Steps[1] <= 0 ||
			(i == 0) != (c.CycleTime == 0) || (i > 0 && c.CycleTime != wakeAt(&c)-wakeAt(&log.cycles[i-1])) {
			t.Errorf("cycle %d: %+v", i, c)
		}
		if i > 0 && c.Counter <= log.cycles[i-1].Counter {
			t.Errorf("cycle %d: Counter %d after %d", i, c.Counter, log.cycles[i-1].Counter)
		}
	}
	if log.cycles[0].Counter != 1 {
		t.Errorf("first Counter %d", log.cycles[0].Counter)
	}
	if !testenv.Portable && th.ThreadID() == 0 {
		t.Error("no thread id recorded")
	}
}

// wakeAt returns when c woke, on cpu.Now's clock.
func wakeAt(c *Cycle) time.Duration { return time.Duration(c.Deadline) + c.Wake }

// TestMonitorSeesOverruns runs a thread whose step blocks for four periods
// every tenth cycle: the monitor sees those cycles end (Wake plus the
// steps) a period or more after their deadline, as many as the thread
// counts overruns, and the deadlines they skip, (end-period)/period+1
// each, are the periods the thread counts missed (but for the last
// cycle's, counted by the next).
func TestMonitorSeesOverruns(t *testing.T) {
	var cycles atomic.Uint64
	slow := stepFunc(func() error {
		if cycles.Add(1)%10 == 0 {
			time.Sleep(4 * time.Millisecond)
		}
		return nil
	})
	log := newCycleLog(4096, 1)
	th, err := New(Config{Name: "T", Frequency: 1000, Monitor: log.monitor}, []Step{{"slow", slow}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runCycles(t, th, &cycles, 45)
	st := th.Stats()
	var overruns, skipped, slowOnes uint64
	for i, c := range log.cycles {
		end := c.Wake + c.Steps[0]
		if end < time.Millisecond {
			continue
		}
		overruns++
		if i < len(log.cycles)-1 {
			skipped += uint64((end-time.Millisecond)/time.Millisecond) + 1
		}
		if c.Steps[0] >= 4*time.Millisecond {
			slowOnes++
		}
	}
	if overruns != st.Overruns || skipped != st.MissedPeriods || slowOnes == 0 {
		t.Errorf("monitor saw %d overruns (%d of the slow step) skipping %d periods; the thread counts %d overruns, %d missed",
			overruns, slowOnes, skipped, st.Overruns, st.MissedPeriods)
	}
}
