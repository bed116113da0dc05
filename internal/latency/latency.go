// Package latency collects latency samples in a benchmark and reports their percentiles (test-only: only _test.go files import it).
package latency

import (
	"slices"
	"testing"
	"time"
)

// Samples is a preallocated list of durations in nanoseconds. Add does not
// allocate while there is room; samples past the capacity are dropped.
type Samples struct {
	ns []int64
}

// New returns Samples with room for n samples.
func New(n int) *Samples { return &Samples{ns: make([]int64, 0, n)} }

// Add records one sample.
func (s *Samples) Add(d time.Duration) {
	if len(s.ns) < cap(s.ns) {
		s.ns = append(s.ns, int64(d))
	}
}

// AddNanos records one sample in nanoseconds.
func (s *Samples) AddNanos(ns int64) {
	if len(s.ns) < cap(s.ns) {
		s.ns = append(s.ns, ns)
	}
}

// Len returns the number of samples.
func (s *Samples) Len() int { return len(s.ns) }

// Percentile returns the p-th percentile (0..100) in nanoseconds, 0 with no
// samples. It sorts a copy.
func (s *Samples) Percentile(p float64) int64 { return Percentile(s.ns, p) }

// Report reports p50, p99 and max to b in unit ("ns" or "us"), with the
// given prefix before the unit (e.g. "" or "wake-").
func (s *Samples) Report(b *testing.B, prefix, unit string) { Report(b, s.ns, prefix, unit) }

// Percentile returns the p-th percentile (0..100) of ns, 0 if empty.
func Percentile(ns []int64, p float64) int64 {
	if len(ns) == 0 {
		return 0
	}
	c := slices.Clone(ns)
	slices.Sort(c)
	i := int(p / 100 * float64(len(c)-1))
	return c[i]
}

// ReportDurations is Report for a slice of durations.
func ReportDurations(b *testing.B, d []time.Duration, prefix, unit string) {
	ns := make([]int64, len(d))
	for i, v := range d {
		ns[i] = int64(v)
	}
	Report(b, ns, prefix, unit)
}

// Report reports p50, p99 and max of samples (nanoseconds; with any unit
// but "us", "µs" and "ms" the samples are reported as they are) to b as
// "<prefix>p50-<unit>", "<prefix>p99-<unit>" and "<prefix>max-<unit>".
func Report(b *testing.B, ns []int64, prefix, unit string) {
	if len(ns) == 0 {
		return
	}
	c := slices.Clone(ns)
	slices.Sort(c)
	div := 1.0
	switch unit {
	case "us", "µs":
		div = 1e3
	case "ms":
		div = 1e6
	}
	at := func(p float64) float64 { return float64(c[int(p/100*float64(len(c)-1))]) / div }
	b.ReportMetric(at(50), prefix+"p50-"+unit)
	b.ReportMetric(at(99), prefix+"p99-"+unit)
	b.ReportMetric(float64(c[len(c)-1])/div, prefix+"max-"+unit)
}
