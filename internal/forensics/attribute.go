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
	// busy is how long the thread was running its work within the span:
	// an RT thread's overrun measures it (end − wake); for a network
	// thread behind it is estimated from its run time in the window.
	busy int64
	// asleep: the thread was asleep at from, waiting for its timer (an
	// RT thread's late wake-up).
	asleep bool
}

// counts is the evidence between two samples for one thread, before it is
// weighed.
type counts struct {
	Evidence
	runShare float64 // the thread's share of its CPU over the last RT period, 0..1
}

// attribute names the cause of sp from the evidence c, in this order:
//
//  1. the cause that accounts for the most of it, provided the causes
//     found account together for at least half of it: steal, a
//     run-queue wait (Preempted, or RTThrottling for a SCHED_FIFO thread
//     that used its real-time budget), Go pauses, page faults, and for a
//     late wake-up CPU time beyond the thread's usual cost per cycle
//     (GoScheduler: it spun in the runtime) and, when its own counts are
//     known and show it did not block besides its sleep, what all these
//     leave (LateTimer: the kernel made it runnable late);
//  2. Work, if the thread was running its work for at least half of it;
//  3. if the thread blocked besides its sleeps (a voluntary switch more
//     than one per cycle): GoPause if the runtime stopped the world in
//     the window, else GoScheduler, the runtime held it;
//  4. Unknown.
//
// budget is the kernel's real-time share (sched_rt_runtime_us /
// sched_rt_period_us; 0 if unlimited or unknown) and fifo says whether
// the thread runs SCHED_FIFO. Each time is capped at the span. Steal is
// counted in 10 ms ticks, so any steal in the window explains a shorter
// event; on ties the finer counts win over steal, and steal over
// LateTimer, which it explains.
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
	if sp.asleep {
		// CPU time beyond the usual cost of a cycle, spent between the
		// kernel's wake-up and the thread's own stamp: in the runtime.
		acc[GoScheduler] = min(int64(c.ExtraRun), T)
	}

	if sp.asleep && c.ThreadKnown && c.Blocked == 0 {
		// Asleep when it should have woken, the thread's lateness is the
		// time until the kernel made it runnable, then the causes above;
		// what they leave is the first: the timer's wake-up came late.
		acc[LateTimer] = max(T-acc[Preempted]-acc[RTThrottling]-acc[GoPause]-acc[PageFaults]-acc[GoScheduler], 0)
	}

	best, sum := Unknown, int64(0)
	for _, k := range [...]Cause{Preempted, RTThrottling, GoPause, PageFaults, GoScheduler, Steal, LateTimer} {
		sum += acc[k]
		if acc[k] > acc[best] {
			best = k
		}
	}
	switch {
	case best != Unknown && 2*min(sum, T) >= T:
		return best
	case 2*min(sp.busy, T) >= T:
		return Work
	case c.ThreadKnown && c.Blocked > 0 && c.GoPauses > 0:
		return GoPause
	case c.ThreadKnown && c.Blocked > 0:
		return GoScheduler
	}
	return Unknown
}
