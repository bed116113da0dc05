package rt_test

import (
	"context"
	"fmt"
	"time"

	"github.com/streamerd/streamerd/rt"
)

// count is a GAM: any type with an Execute() error method is a step.
type count struct{ n int }

func (c *count) Execute() error {
	c.n++
	return nil
}

// Example runs a step at 1 kHz on an RT thread until its context is done.
// The thread is not pinned here: Config.CPUMask pins it to the CPUs it
// names (rt/cpu), and Priority 1..99 runs it under SCHED_FIFO.
func Example() {
	c := &count{}
	th, err := rt.New(rt.Config{Name: "Loop", Frequency: 1000}, []rt.Step{{Name: "count", Exec: c}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := th.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	<-ctx.Done()
	err = th.Stop() // waits for the thread: nil, or rt.ErrNotRunning once ctx stopped it
	st := th.Stats()
	fmt.Println("ran:", c.n > 0, "cycles counted:", st.Cycles == uint64(c.n), "failures:", st.Failures, "running:", st.Running)
	_ = err
	// Output: ran: true cycles counted: true failures: 0 running: false
}

// Example_monitor keeps the worst wake-up lateness and cycle time of a
// thread with a Monitor: the RT thread calls it after every cycle, so it
// only compares and stores (no lock, no allocation), and the figures are
// read once the thread has stopped. A monitor read while the thread runs
// would store into atomics or an rtsync.SampleRing instead.
func Example_monitor() {
	var cycles int
	var worstWake, worstCycle time.Duration
	monitor := func(c *rt.Cycle) {
		cycles++
		worstWake = max(worstWake, c.Wake)
		worstCycle = max(worstCycle, c.CycleTime)
	}
	th, err := rt.New(rt.Config{Name: "Loop", Frequency: 1000, Monitor: monitor}, []rt.Step{{Name: "count", Exec: &count{}}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := th.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	<-ctx.Done()
	th.Stop()
	// worstWake is what cyclictest reports as latency; worstCycle is
	// MARTe2's CycleTime at its worst. Both vary from run to run.
	fmt.Println("every cycle seen:", uint64(cycles) == th.Stats().Cycles, "never woke early:", worstWake >= 0)
	_ = worstCycle
	// Output: every cycle seen: true never woke early: true
}
