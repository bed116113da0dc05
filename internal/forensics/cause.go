package forensics

import (
	"fmt"
	"time"
)

// Cause is what a late or skipped cycle is put down to.
type Cause uint8

const (
	// Unknown: nothing the kernel or the Go runtime counts accounts for
	// at least half of the delay.
	Unknown Cause = iota
	// Steal: the hypervisor ran something else on the CPU (steal time in
	// /proc/stat).
	Steal
	// Preempted: the thread was runnable but waited for its CPU while
	// other threads ran (run-queue wait in /proc/self/task/TID/schedstat).
	Preempted
	// RTThrottling: a SCHED_FIFO thread waited for its CPU after using
	// up the kernel's real-time budget (sched_rt_runtime_us of
	// sched_rt_period_us).
	RTThrottling
	// GoPause: the Go runtime stopped the world (runtime/metrics
	// /sched/pauses/total/gc and /other).
	GoPause
	// PageFaults: the thread faulted pages in (minflt and majflt in
	// /proc/self/task/TID/stat).
	PageFaults
	// Work: the thread ran the whole time: a step (or, for a producer,
	// the network thread's own sending) took that long.
	Work
	// CPUUnavailable: the thread was neither running its own code, nor
	// waiting for its CPU, nor held by Go: the CPU was not there to run
	// it. On a virtual machine, the host did not run the virtual CPU
	// (steal shorter than /proc/stat's 10 ms resolution), or ran its own
	// work on it while the thread was charged for the CPU; on any
	// machine, interrupts, or a CPU slow to leave a deep idle state. A
	// thread that waited for a P after its sleep reads so too: the
	// counts cannot tell it apart (LateTraceDir's traces can).
	CPUUnavailable
	// GoScheduler: the Go runtime held the thread outside any
	// stop-the-world pause: the hand-off of its P that it makes between
	// cycles came back after the deadline, held by other threads of the
	// process that the kernel was not running (normal-priority threads
	// on a busy machine). The thread's own stamps show it.
	GoScheduler
	// NumCauses is the number of causes.
	NumCauses
)

var causeNames = [NumCauses]string{"unknown", "steal", "preempted", "rt_throttling", "go_pause", "page_faults", "work", "cpu_unavailable", "go_scheduler"}

// String returns the cause as the metric label and /status spell it.
func (c Cause) String() string {
	if c >= NumCauses {
		return fmt.Sprintf("cause(%d)", uint8(c))
	}
	return causeNames[c]
}

// Evidence is what the kernel and the Go runtime counted around one late
// or skipped cycle: the difference between the two samples that enclose
// it, so it covers Window, at least the event and at most a sampling
// interval more on each side (two after, to let the kernel account).
type Evidence struct {
	Window              time.Duration // the span the counts cover
	CPU                 int           // the CPU the thread ran on, -1 if unknown
	Steal               time.Duration // hypervisor steal on that CPU (10 ms resolution)
	Wait                time.Duration // the thread was runnable but not running
	Run                 time.Duration // the thread ran
	InvoluntarySwitches uint64        // the kernel took the CPU from it
	Blocked             uint64        // an RT thread: times it blocked other than in its sleeps and its yields (voluntary switches beyond one per cycle and per yield), or in a yield that came back late: in the Go runtime, or in a step
	ExtraRun            time.Duration // an RT thread: CPU time beyond its usual cost per cycle (over the second before): its steps' when it overran, charged by the kernel when it woke late
	StealLastSecond     time.Duration // steal on the CPU over the second before the window ended
	RuntimeStall        time.Duration // of the event, the time the Go runtime did not run the monitor's goroutine when its sleep had ended (beyond a timer's usual wake-up)
	MinorFaults         uint64        // pages it faulted in without I/O
	MajorFaults         uint64        // pages it faulted in from disk
	GoPauses            uint64        // Go stop-the-world pauses that ended in the window
	GCPauses            uint64        // of which for the garbage collector
	GoPause             time.Duration // their estimated total
	ThreadKnown         bool          // the thread's own counts (Wait .. MajorFaults) could be read
	FIFO                bool          // the thread runs SCHED_FIFO
	Step                string        // the longest step of the cycle, for an RT thread
	StepTime            time.Duration // its execution time
	YieldLate           time.Duration // an RT thread: how far past the deadline the Go scheduler gave it back after it yielded its P before the cycle (0: it did not, or in time)
}

// Event is one late cycle of an RT thread or one cycle a producer skipped,
// with its cause.
type Event struct {
	Source  string    // the thread's or the datasource's name
	Time    time.Time // the deadline the cycle woke for, or when the cycle was skipped
	At      int64     // the same instant on cpu.Now's clock (CLOCK_MONOTONIC ns)
	Counter uint32    // the cycle's Counter (RT threads)
	// Late is how late the thread was: its wake-up lateness, or for an
	// overrun how far its work ran past the next deadline, whichever is
	// more. For a skipped cycle: how long the network thread had not
	// taken a cycle (HandOffDepth periods).
	Late     time.Duration
	Missed   uint64 // periods skipped after the cycle (an overrun)
	Skip     bool   // a producer's skipped cycle
	Cause    Cause
	Evidence Evidence
}

// Explain says in a few words what the evidence says about the cause,
// as the log and /status show it: "hypervisor steal 8.1 ms on CPU 1".
func (e *Event) Explain() string {
	v := &e.Evidence
	cpu := ""
	if v.CPU >= 0 {
		cpu = fmt.Sprintf(" on CPU %d", v.CPU)
	}
	who := ""
	if e.Skip {
		who = "network thread "
	}
	switch e.Cause {
	case Steal:
		return fmt.Sprintf("hypervisor steal %s%s", ms(v.Steal), cpu)
	case Preempted:
		if v.InvoluntarySwitches > 0 {
			return fmt.Sprintf("%spreempted: waited %s for %s (%d involuntary switches)", who, ms(v.Wait), cpuName(v.CPU), v.InvoluntarySwitches)
		}
		if v.FIFO && v.ThreadKnown {
			// Never switched out while it ran: it waited between its
			// wake-up and its first instruction, where nothing of its
			// priority or below can hold a SCHED_FIFO thread.
			return fmt.Sprintf("%spreempted: waited %s for %s after it woke, at SCHED_FIFO: the host stopping the CPU (steal is counted in 10 ms ticks) or kernel code that could not be preempted", who, ms(v.Wait), cpuName(v.CPU))
		}
		return fmt.Sprintf("%spreempted: waited %s for %s", who, ms(v.Wait), cpuName(v.CPU))
	case RTThrottling:
		return fmt.Sprintf("%sRT throttling: waited %s%s with the real-time budget spent", who, ms(v.Wait), cpu)
	case GoPause:
		return fmt.Sprintf("Go stop-the-world %s (%d pauses, %d for GC)", ms(v.GoPause), v.GoPauses, v.GCPauses)
	case PageFaults:
		return fmt.Sprintf("%spage faults: %d minor, %d major", who, v.MinorFaults, v.MajorFaults)
	case Work:
		if e.Skip {
			return fmt.Sprintf("the network thread was busy sending: ran %s", ms(v.Run))
		}
		if v.Step != "" {
			return fmt.Sprintf("its own work: step %s ran %s, %s of CPU beyond a usual cycle", v.Step, ms(v.StepTime), ms(v.ExtraRun))
		}
		return fmt.Sprintf("its own work: %s of CPU beyond a usual cycle", ms(v.ExtraRun))
	case GoScheduler:
		stalled := ""
		if v.RuntimeStall > 0 {
			stalled = fmt.Sprintf("; the monitor's goroutine was not run either for %s", ms(v.RuntimeStall))
		}
		if v.YieldLate > 0 {
			return fmt.Sprintf("held in the Go runtime before it slept: the scheduler gave it back %s after the deadline when it yielded its P (it does every 8 ms; a thread of the process the kernel was not running had to hand it back)%s", ms(v.YieldLate), stalled)
		}
		return fmt.Sprintf("held in the Go runtime when it woke: blocked %d times besides its sleeps, no stop-the-world (waiting for a P or a runtime lock that a thread the kernel was not running held)%s", v.Blocked, stalled)
	case CPUUnavailable:
		if v.ExtraRun > 0 && !e.Skip {
			return fmt.Sprintf("%s was not there to run it for %s: not waiting for it, not held by Go, charged %s of CPU beyond a usual cycle by the kernel (steal on it in the last second: %s, counted in 10 ms ticks)", cpuName(v.CPU), ms(e.Late), ms(v.ExtraRun), ms(v.StealLastSecond))
		}
		return fmt.Sprintf("%s was not there to run it for %s: neither running, nor waiting, nor held by Go (steal on it in the last second: %s, counted in 10 ms ticks)", cpuName(v.CPU), ms(e.Late), ms(v.StealLastSecond))
	}
	if !v.ThreadKnown {
		return fmt.Sprintf("no cause found (steal %s%s, no Go pause; the thread's counts unreadable)", ms(v.Steal), cpu)
	}
	if e.Skip {
		return fmt.Sprintf("no cause found (steal %s%s, the network thread waited %s and ran %s, %d page faults, %d Go pauses)", ms(v.Steal), cpu, ms(v.Wait), ms(v.Run), v.MinorFaults+v.MajorFaults, v.GoPauses)
	}
	return fmt.Sprintf("no cause found (steal %s%s, waited %s, %d page faults, %d Go pauses, blocked %d times)", ms(v.Steal), cpu, ms(v.Wait), v.MinorFaults+v.MajorFaults, v.GoPauses, v.Blocked)
}

// ms formats d in milliseconds with one decimal, or in µs below 1 ms.
func ms(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d)/1e6)
}

func cpuName(cpu int) string {
	if cpu < 0 {
		return "its CPU"
	}
	return fmt.Sprintf("CPU %d", cpu)
}
