// Package handoff sizes a producer's hand-off ring, the queue of cycles between Synchronise and its network thread: enough cycles to cover a stall of the network thread, within a memory budget.
package handoff

import (
	"fmt"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/rules"
	"github.com/streamerd/streamerd/netthread"
)

// The automatic sizing's defaults and bounds (docs/config.md, HandOffTime
// and HandOffBytes).
const (
	// DefaultTime is the time of cycles an automatic ring holds: a
	// network thread held off the CPU this long loses no cycle.
	DefaultTime = 500 * time.Millisecond
	// MaxTime bounds the time an automatic ring may be asked to hold.
	MaxTime = time.Minute
	// DefaultBytes is the memory an automatic ring may take, per
	// producer.
	DefaultBytes = 64 << 20
	// DefaultCyclePeriod is the period an automatic ring is sized for when
	// the producer is not told its thread's (1 kHz).
	DefaultCyclePeriod = time.Millisecond
)

// Size is the depth a hand-off ring takes and what it covers.
type Size struct {
	// Depth is the number of cycles the ring holds, at least 1.
	Depth int
	// Auto is true when the depth was chosen by time (Auto), false when
	// it was given.
	Auto bool
	// Covers is the time those cycles last at the period sized for.
	Covers time.Duration
	// Period is the period it was sized for.
	Period time.Duration
	// Bytes is the ring's memory: Depth slots of the size asked.
	Bytes int
	// Limited is true when an automatic ring holds less than the time
	// asked: the budget or the producer's bound set the depth.
	Limited bool
}

// Auto sizes a hand-off ring of slots of slotBytes each. depth > 0 is that
// depth. depth 0 is automatic: as many cycles as cover lasts at one per
// period (rounded up), at most budget bytes and maxDepth slots, at least
// one. A period ≤ 0 is DefaultCyclePeriod, a cover ≤ 0 DefaultTime and a
// budget ≤ 0 DefaultBytes.
func Auto(depth int, period, cover time.Duration, slotBytes, budget, maxDepth int) Size {
	if period <= 0 {
		period = DefaultCyclePeriod
	}
	h := Size{Depth: depth, Period: period}
	if depth <= 0 {
		if cover <= 0 {
			cover = DefaultTime
		}
		if budget <= 0 {
			budget = DefaultBytes
		}
		want := int64((cover + period - 1) / period)
		d := want
		if slotBytes > 0 {
			d = min(d, int64(budget/slotBytes))
		}
		d = max(min(d, int64(maxDepth)), 1)
		h.Depth, h.Auto, h.Limited = int(d), true, d < want
	}
	h.Covers, h.Bytes = time.Duration(h.Depth)*period, h.Depth*slotBytes
	return h
}

// String describes the ring for a log line or a listing: "500 cycles (auto),
// 500ms at 1ms a cycle, 2.0 MiB".
func (h Size) String() string {
	how := ""
	if h.Auto {
		how = " (auto)"
	}
	unit := "cycles"
	if h.Depth == 1 {
		unit = "cycle"
	}
	s := fmt.Sprintf("%d %s%s, %v at %v a cycle, %.1f MiB", h.Depth, unit, how, h.Covers, h.Period, float64(h.Bytes)/(1<<20))
	if h.Limited {
		s += ": less than asked, the memory budget allows no more"
	}
	return s
}

// CheckThread records in e the broken rules of t: its priority, its wait,
// and the parameters that size an automatic ring: HandOffTime
// (0..MaxTime), HandOffBytes (0..maxBytes) and CyclePeriod (not
// negative).
func CheckThread(e *rules.ConfigErrors, t *datasource.NetworkThread, maxBytes int) {
	e.Priority(t.Priority)
	if key, err := netthread.CheckWait(t.NetworkWait, t.NetworkSpin); err != nil {
		e.Param(key, "%v", err)
	}
	if t.HandOffTime < 0 || t.HandOffTime > MaxTime {
		e.Param("HandOffTime", "must be 0..%v, got %v", MaxTime, t.HandOffTime)
	}
	if t.HandOffBytes < 0 || t.HandOffBytes > maxBytes {
		e.Param("HandOffBytes", "must be 0..%d (%d MiB), got %d", maxBytes, maxBytes>>20, t.HandOffBytes)
	}
	if t.CyclePeriod < 0 {
		e.Param("CyclePeriod", "must not be negative, got %v", t.CyclePeriod)
	}
}
