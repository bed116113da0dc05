package forensics

import "time"

// Estimated cost of a page fault, for weighing faults against the other
// causes: a minor fault (a fresh page zeroed) took 2 to 5 µs on the 2-vCPU
// VM streamerd is measured on; a major one waits for the disk.
const (
	minorFaultCost = 2 * time.Microsecond
	majorFaultCost = 500 * time.Microsecond
)

// throttleMargin: a SCHED_FIFO thread that used within this share of the
// kernel's real-time budget over the last period is taken to have been
// throttled when it then waited for its CPU.
const throttleMargin = 0.10

// span is what an event asks to explain: the time from..to (cpu.Now ns)
// during which the thread should have run and did not, or ran too long.
type span struct {
	from, to int64
	ran      bool // the thread was running through it (an overrun, a network thread behind): Work is possible
}

// counts is the evidence between two samples for one thread, before it is
// weighed.
type counts struct {
	Evidence
	runShare float64 // the thread's share of its CPU over the last RT period, 0..1
}

// attribute names the cause of sp from the evidence c: the cause that
// accounts for the most of it, provided the causes found account
// together for at least half of it; else Work if the thread ran through
// at least half of it (a step, or the network thread's sending, took that
// long); else Unknown. budget is the kernel's real-time share
// (sched_rt_runtime_us / sched_rt_period_us; 0 if unlimited or unknown)
// and fifo says whether the thread runs SCHED_FIFO.
//
// Each time is capped at the span. Steal is counted in 10 ms ticks, so
// any steal in the window explains a shorter event; on ties the finer
// counts (the wait, the pauses, the faults) win over steal.
func attribute(sp span, c *counts, fifo bool, budget float64) Cause {
	T := max(sp.to-sp.from, 1)
	var acc [NumCauses]int64
	acc[Steal] = min(int64(c.Steal), T)
	wait := min(int64(c.Wait), T)
	if fifo && budget > 0 && c.runShare >= budget-throttleMargin {
		acc[RTThrottling] = wait
	} else {
		acc[Preempted] = wait
	}
	acc[GoPause] = min(int64(c.GoPause), T)
	faults := time.Duration(c.MinorFaults)*minorFaultCost + time.Duration(c.MajorFaults)*majorFaultCost
	acc[PageFaults] = min(int64(faults), T)

	best, sum := Unknown, int64(0)
	for _, k := range [...]Cause{Preempted, RTThrottling, GoPause, PageFaults, Steal} {
		sum += acc[k]
		if acc[k] > acc[best] {
			best = k
		}
	}
	switch {
	case best != Unknown && 2*min(sum, T) >= T:
		return best
	case sp.ran && c.ThreadKnown && 2*min(int64(c.Run), T) >= T:
		return Work
	}
	return Unknown
}
