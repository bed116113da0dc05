package rt

import (
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// LateCycle is a cycle that woke more than the thread's late threshold
// (Config.LateThreshold) after its deadline, or whose work ran past the
// next deadline, so that periods were skipped (an overrun: Missed > 0).
// The RT thread stamps it in a preallocated ring, with nothing a monitor
// could not learn elsewhere: explaining it (hypervisor steal, preemption,
// a page fault, a Go pause) is the job of whoever drains the ring.
type LateCycle struct {
	Counter  uint32        // the cycle's Counter signal
	Deadline int64         // the deadline it woke for, on cpu.Now's clock (ns)
	Wake     time.Duration // when it woke, after Deadline: its wake-up lateness
	End      time.Duration // when its last step returned, after Deadline
	Missed   uint64        // periods skipped after it because its work ended past them; 0 without an overrun
	Step     int           // the step that ran longest in the cycle (GAMs then brokers), -1 if none
	StepTime time.Duration // that step's execution time
}

// Columns of a row of the late-cycle ring.
const (
	lateCounter = iota
	lateDeadline
	lateWake
	lateEnd
	lateMissed
	lateStep
	lateStepTime
	lateWidth
)

// Sizing of the late-cycle ring: lateSpan of cycles, within bounds, so a
// monitor draining every few tens of milliseconds loses none even when
// every cycle is late.
const (
	lateSpan    = 500 * time.Millisecond
	minLateRows = 256
	maxLateRows = 4096
)

// lateLog is the RT thread's side of late-cycle forensics.
type lateLog struct {
	after   int64 // the late threshold, ns
	ring    *rtsync.SampleRing
	scratch []int64 // DrainLateCycles's rows; its caller only
	// clockOff converts the loop's clock to cpu.Now's; set by the RT
	// thread before its first cycle, read only by it.
	clockOff int64
}

func newLateLog(period, threshold time.Duration) lateLog {
	if threshold <= 0 {
		threshold = period / 2
	}
	rows := min(max(int(lateSpan/period), minLateRows), maxLateRows)
	return lateLog{
		after:   int64(threshold),
		ring:    rtsync.NewSampleRing(rows, lateWidth),
		scratch: make([]int64, 64*lateWidth),
	}
}

// startForensics runs on the RT thread before its first cycle: it records
// the thread's id (one gettid system call, before the loop) and how the
// loop's clock maps onto cpu.Now's.
func (t *Thread) startForensics(c *clock) {
	t.tid.Store(int32(cpu.ThreadID()))
	t.late.clockOff = cpu.Now() - c.now()
}

// stampLate records the cycle cy has just run, which woke for deadline dl,
// if it woke late or overran (cy.pending, set by advance). Otherwise it is
// one comparison. It never allocates and makes no system call.
func (t *Thread) stampLate(dl int64, cy *cycle) {
	l := &t.late
	if cy.wake-dl <= l.after && cy.pending == 0 {
		return
	}
	step, longest := -1, int64(-1)
	for i := range t.acc.steps {
		if d := t.acc.steps[i].last; d > longest {
			step, longest = i, d
		}
	}
	row := l.ring.Row()
	row[lateCounter].Store(int64(t.counter))
	row[lateDeadline].Store(dl + l.clockOff)
	row[lateWake].Store(cy.wake - dl)
	row[lateEnd].Store(cy.end - dl)
	row[lateMissed].Store(int64(cy.pending))
	row[lateStep].Store(int64(step))
	row[lateStepTime].Store(max(longest, 0))
	l.ring.Publish()
}

// LateThreshold returns how late a wake-up must be for the thread to stamp
// its cycle as late: Config.LateThreshold, or half the period when that is
// zero.
func (t *Thread) LateThreshold() time.Duration { return time.Duration(t.late.after) }

// ThreadID returns the OS thread id of the RT thread (the TID of
// /proc/self/task/TID), recorded when it last started; 0 before its first
// start and on systems other than Linux.
func (t *Thread) ThreadID() int { return int(t.tid.Load()) }

// DrainLateCycles copies the late cycles stamped since the last call into
// dst, oldest first, as many as fit, and returns how many it copied and
// how many were lost because the caller came too late (the ring holds
// half a second of cycles, 256 to 4096; the RT thread never waits). One
// goroutine at a time may call it; it never allocates.
func (t *Thread) DrainLateCycles(dst []LateCycle) (n int, lost uint64) {
	l := &t.late
	for n < len(dst) {
		rows, lst := l.ring.Drain(l.scratch[:min(len(dst)-n, len(l.scratch)/lateWidth)*lateWidth])
		lost += lst
		for i := range rows {
			r := l.scratch[i*lateWidth : (i+1)*lateWidth]
			dst[n] = LateCycle{
				Counter: uint32(r[lateCounter]), Deadline: r[lateDeadline],
				Wake: time.Duration(r[lateWake]), End: time.Duration(r[lateEnd]),
				Missed: uint64(r[lateMissed]), Step: int(r[lateStep]), StepTime: time.Duration(r[lateStepTime]),
			}
			n++
		}
		if rows == 0 {
			break
		}
	}
	return n, lost
}
