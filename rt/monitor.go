package rt

import "time"

// Cycle is one cycle of an RT thread as Config.Monitor sees it: what the
// thread measured of it, for whoever keeps timings the thread does not
// (histograms, percentiles, late-cycle forensics). Durations are counted
// from Deadline on the thread's clock (CLOCK_MONOTONIC through the vDSO).
type Cycle struct {
	Counter  uint32        // the cycle's Counter signal: the deadline it woke for, numbered from 1
	Deadline int64         // that deadline, on cpu.Now's clock (ns)
	Wake     time.Duration // when it woke, after Deadline: its wake-up lateness

	// CycleTime is the time from the previous cycle's wake-up to this
	// one's (MARTe2's CycleTime); 0 for the first cycle after Start.
	CycleTime time.Duration

	// YieldLate is how far past Deadline the Go scheduler gave the thread
	// back after it yielded its P before this cycle's sleep (see the
	// package's Scheduling section): part of Wake. 0 when it did not
	// yield, or was back in time.
	YieldLate time.Duration

	// Steps holds the execution time of each step in this cycle, GAMs then
	// brokers in order, one after the other from Wake: the cycle's work
	// ended their sum after Wake. When it ended a period or more after
	// Deadline (end ≥ period: an overrun), the thread skips the
	// (end-period)/period + 1 deadlines already gone.
	Steps []time.Duration
}

// monitor calls Config.Monitor with the cycle cy has just run, which woke
// for deadline dl; its cycle time is cycleTime. Steps already holds the
// step times (runSteps). It does not allocate.
func (t *Thread) monitor(dl int64, cy *cycle, cycleTime int64) {
	m := &t.mon
	m.Counter = uint32(cy.idx)
	m.Deadline = dl + t.clockOff
	m.Wake = time.Duration(cy.wake - dl)
	m.CycleTime = time.Duration(cycleTime)
	m.YieldLate = time.Duration(cy.yieldLate)
	t.cfg.Monitor(m)
}
