package forensics

import (
	"math"
	"runtime/metrics"
)

// goPauses are the Go runtime's stop-the-world pauses since the process
// started, as runtime/metrics counts them: how many, and their total
// estimated from the histogram's buckets (the middle of each; the lower
// bound of the last, open one). A pause includes the time the runtime
// took to stop every goroutine, so a locked thread that wakes from a
// system call during it waits for all of it.
type goPauses struct {
	gcN, otherN   uint64
	gcNs, otherNs int64
}

// pauseReader reads the pause histograms into preallocated samples.
type pauseReader struct {
	samples [2]metrics.Sample
}

func newPauseReader() *pauseReader {
	r := &pauseReader{}
	r.samples[0].Name = "/sched/pauses/total/gc:seconds"
	r.samples[1].Name = "/sched/pauses/total/other:seconds"
	metrics.Read(r.samples[:]) // the histograms' memory, once
	return r
}

// read returns the totals now. It does not stop the world and, after the
// first read, does not allocate.
func (r *pauseReader) read() goPauses {
	metrics.Read(r.samples[:])
	var p goPauses
	p.gcN, p.gcNs = histTotal(r.samples[0].Value)
	p.otherN, p.otherNs = histTotal(r.samples[1].Value)
	return p
}

// histTotal returns the count and the estimated sum, in nanoseconds, of a
// Float64Histogram of seconds; 0, 0 for a metric this Go does not have.
func histTotal(v metrics.Value) (n uint64, ns int64) {
	if v.Kind() != metrics.KindFloat64Histogram {
		return 0, 0
	}
	h := v.Float64Histogram()
	var sum float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		var mid float64
		switch {
		case math.IsInf(lo, -1):
			mid = max(hi, 0)
		case math.IsInf(hi, 1):
			mid = lo
		default:
			mid = (lo + hi) / 2
		}
		n += c
		sum += float64(c) * mid
	}
	return n, int64(sum * 1e9)
}
