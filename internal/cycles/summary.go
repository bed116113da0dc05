package cycles

import (
	"math"
	"time"
)

// LatencyBuckets are the upper bounds (inclusive) of the wake-up latency
// histogram in Summary.LatencyHist; the last bucket counts everything
// above the last bound. Early wake-ups (negative latency, impossible with
// clock_nanosleep) fall in bucket 0.
var LatencyBuckets = [numLatencyBuckets - 1]time.Duration{
	1 * time.Microsecond, 2 * time.Microsecond, 5 * time.Microsecond,
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	1 * time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 50 * time.Millisecond,
}

// numLatencyBuckets is the number of buckets in Summary.LatencyHist.
const numLatencyBuckets = 15

// Summary is what the timing rows of one thread add up to since the
// start, in the spirit of MARTe2's CycleTime and per-GAM ExecTime: last,
// extremes, a latency histogram. Durations are zero until there is a
// sample. Rows lost before they were drained are missing from it.
type Summary struct {
	Cycles uint64 // rows added

	LastCycle, MinCycle, MaxCycle       time.Duration // start to start
	LastLatency, MinLatency, MaxLatency time.Duration // wake-up minus deadline
	MaxBusy                             time.Duration // all steps of one cycle

	LatencyHist [numLatencyBuckets]uint64 // see LatencyBuckets

	Steps []StepSummary // GAMs then brokers, in execution order
}

// StepSummary is the execution time of one GAM or broker.
type StepSummary struct {
	Last, Max time.Duration
	Total     time.Duration // over Summary.Cycles, for the mean
}

// NewSummary returns a Summary of a thread with steps steps.
func NewSummary(steps int) Summary { return Summary{Steps: make([]StepSummary, steps)} }

// Add accounts for one row of DrainTimings.
func (s *Summary) Add(row []int64) {
	lat := time.Duration(row[TimingLateness])
	if s.Cycles == 0 || lat < s.MinLatency {
		s.MinLatency = lat
	}
	if s.Cycles == 0 || lat > s.MaxLatency {
		s.MaxLatency = lat
	}
	s.Cycles++
	s.LastLatency = lat
	s.LatencyHist[latencyBucket(lat)]++
	if c := time.Duration(row[TimingCycle]); c > 0 {
		if s.MinCycle == 0 || c < s.MinCycle {
			s.MinCycle = c
		}
		s.MaxCycle = max(s.MaxCycle, c)
		s.LastCycle = c
	}
	var busy time.Duration
	for i := range s.Steps {
		d := time.Duration(row[TimingSteps+i])
		st := &s.Steps[i]
		st.Last, st.Max, st.Total = d, max(st.Max, d), st.Total+d
		busy += d
	}
	s.MaxBusy = max(s.MaxBusy, busy)
}

// CopyTo copies s into dst, reusing dst's Steps: no allocation once dst
// has as many steps.
func (s *Summary) CopyTo(dst *Summary) {
	steps := dst.Steps
	*dst = *s
	dst.Steps = append(steps[:0], s.Steps...)
}

func latencyBucket(d time.Duration) int {
	for i, b := range LatencyBuckets {
		if d <= b {
			return i
		}
	}
	return numLatencyBuckets - 1
}

// LatencyQuantile estimates a wake-up latency quantile from the histogram:
// the upper bound of the bucket that holds it (MaxLatency for the last).
func (s *Summary) LatencyQuantile(q float64) time.Duration {
	var total uint64
	for _, n := range s.LatencyHist {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Floor(q*float64(total-1))) + 1
	var seen uint64
	for i, n := range s.LatencyHist {
		seen += n
		if seen >= rank && i < len(LatencyBuckets) {
			return LatencyBuckets[i]
		}
		if seen >= rank {
			break
		}
	}
	return s.MaxLatency
}
