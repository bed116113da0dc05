package rt

import (
	"time"

	"github.com/streamerd/streamerd/rt/rtsync"
)

// The columns of a row of DrainTimings: one row per cycle, in nanoseconds.
const (
	// TimingLateness is the wake-up minus the deadline.
	TimingLateness = 0
	// TimingCycle is the cycle time, start to start; 0 for the first
	// cycle after Start.
	TimingCycle = 1
	// TimingSteps is the first step's column: column TimingSteps+i is the
	// execution time of step i (GAMs then brokers, in order).
	TimingSteps = 2
)

// Sizing of the timing ring: enough rows for timingSpan of cycles, so a
// collector draining several times per timingSpan loses none, within
// bounds.
const (
	timingSpan    = 500 * time.Millisecond
	minTimingRows = 1024
	maxTimingRows = 1 << 15
)

// newTimingRing returns the ring of per-cycle timings for a thread of
// this period and step count.
func newTimingRing(period time.Duration, steps int) *rtsync.SampleRing {
	rows := min(max(int(timingSpan/period), minTimingRows), maxTimingRows)
	return rtsync.NewSampleRing(rows, TimingSteps+steps)
}

// recordTimings publishes the cycle's row; a no-op unless
// Config.RecordTimings. It makes no system call and never allocates.
func (t *Thread) recordTimings(lateness, cycleTime int64) {
	r := t.timings
	if r == nil {
		return
	}
	row := r.Row()
	row[TimingLateness].Store(lateness)
	row[TimingCycle].Store(cycleTime)
	for i := range t.acc.steps {
		row[TimingSteps+i].Store(t.acc.steps[i].last)
	}
	r.Publish()
}

// TimingWidth returns the columns of a DrainTimings row: TimingSteps plus
// one per step.
func (t *Thread) TimingWidth() int { return TimingSteps + len(t.steps) }

// DrainTimings copies the per-cycle timings recorded since the last call
// into dst, TimingWidth columns per cycle, as many cycles as fit, oldest
// first; it returns the cycles copied and those lost because the caller
// came too late (the RT thread never waits for it). Without
// Config.RecordTimings it returns 0, 0. One goroutine at a time may call
// it; it never allocates.
func (t *Thread) DrainTimings(dst []int64) (cycles int, lost uint64) {
	if t.timings == nil {
		return 0, 0
	}
	return t.timings.Drain(dst)
}
