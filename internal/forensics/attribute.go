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
	// asleep: an RT thread asleep at from, waiting for its timer (a late
	// wake-up); overran: an RT thread whose work ran past its period.
	asleep, overran bool
	// steps is, for an RT thread that overran, how long its steps took
	// (end − wake): the most CPU its work can have used.
	steps int64
	// busy is, for a network thread behind, the part of the span it spent
	// running, estimated from its run time in the window.
	busy int64
}

// counts is the evidence between two samples for one thread, before it is
// weighed.
type counts struct {
	Evidence
	runShare float64 // the thread's share of its CPU over the last RT period, 0..1
}

// attribute names the cause of sp from the evidence c. Each cause gets
// the time it accounts for, capped at the span:
//
//   - Steal: hypervisor steal on the thread's CPU (10 ms ticks);
//   - Preempted, or RTThrottling for a SCHED_FIFO thread that used its
//     real-time budget: the thread's run-queue wait;
//   - GoPause: Go's stop-the-world pauses;
//   - PageFaults: the thread's faults, at an estimated cost each;
//   - for an RT thread whose counts are known, the CPU time it used
//     beyond a cycle's usual cost, less the faults: its own Work when it
//     overran, up to the time its steps took;
//   - for an RT thread whose counts are known, what all these leave: the
//     time the thread was neither running its own code, nor waiting for
//     its CPU, nor held by Go. GoScheduler when its yield of its P came
//     back after the deadline (its own stamps say so), GoPause when it
//     blocked besides its sleeps and the world stopped; else
//     CPUUnavailable: its CPU was not there to run it (a host that did
//     not run the virtual CPU, below steal's 10 ms resolution;
//     interrupts; a deep idle state). CPU time charged to a thread that
//     woke late, beyond what its steps used, is counted here too: it
//     was charged in the kernel (interrupts, the host's exits), not
//     spent in the Go runtime, which does not spin a goroutine out of
//     its sleep. A block alone names nothing: in Go execution traces of
//     late wake-ups the block the counts showed was in the cycle's
//     steps (the runtime preempting the thread after its stamp) or not
//     there, and the thread had been in its sleep's system call.
//
// The cause with the most time names the event, provided the causes
// found account together for at least half of it; a network thread behind
// that ran for half of the span is put down to its Work; else Unknown. On
// ties the finer counts win over steal, and every measured cause over
// what they leave (which steal may explain).
func attribute(sp span, c *counts, fifo bool, budget float64) Cause {
	T := max(sp.to-sp.from, 1)
	capT := func(d time.Duration) int64 { return min(max(int64(d), 0), T) }
	var acc [NumCauses]int64
	acc[Steal] = capT(c.Steal)
	wait := capT(c.Wait)
	if fifo && budget > 0 && c.runShare >= budget-throttleMargin {
		acc[RTThrottling] = wait
	} else {
		acc[Preempted] = wait
	}
	acc[GoPause] = capT(c.GoPause)
	faults := time.Duration(c.MinorFaults)*minorFaultCost + time.Duration(c.MajorFaults)*majorFaultCost
	acc[PageFaults] = capT(faults)
	var rest int64 // what the measured causes leave, put down to restCause
	restCause := Unknown
	if c.ThreadKnown && (sp.asleep || sp.overran) {
		if sp.overran {
			acc[Work] = min(capT(c.ExtraRun-faults), sp.steps)
		}
		// CPU charged beyond what its steps can have used is not Go's:
		// a woken goroutine leaves its system call without spinning
		// (it keeps its P, takes an idle one, or blocks for one). It
		// was charged in the kernel while it woke (interrupts, a host
		// that took the virtual CPU without counting steal), so it
		// stays in what the measured causes leave. A block besides the
		// sleeps and yields may have been anywhere in the window: it
		// names the Go runtime only with a stop-the-world beside it,
		// or when the thread's own stamps put it at a yield that came
		// back late.
		rest = max(T-wait-acc[GoPause]-acc[PageFaults]-acc[Work], 0)
		switch {
		case c.YieldLate > 0:
			restCause = GoScheduler
		case c.Blocked > 0 && c.GoPauses > 0:
			restCause = GoPause
		default:
			restCause = CPUUnavailable
		}
	}

	// The causes measured first, then what they leave, which steal and
	// the finer counts beat on a tie.
	best, sum := Unknown, rest
	for _, k := range [...]Cause{Preempted, RTThrottling, GoPause, PageFaults, GoScheduler, Work, Steal} {
		sum += acc[k]
		if acc[k] > acc[best] {
			best = k
		}
	}
	if rest > 0 && rest+acc[restCause] > acc[best] {
		best = restCause
	}
	switch {
	case best != Unknown && 2*min(sum, T) >= T:
		return best
	case 2*min(sp.busy, T) >= T:
		return Work
	}
	return Unknown
}
