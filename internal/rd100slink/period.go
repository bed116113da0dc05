package rd100slink

import "math"

// PeriodStats describes the emission period measured from t_us deltas of
// consecutive in-order packets, in microseconds.
type PeriodStats struct {
	Count  uint64  `json:"count"` // deltas accumulated
	MinUs  uint64  `json:"min_us"`
	MaxUs  uint64  `json:"max_us"`
	MeanUs float64 `json:"mean_us"`
	StdUs  float64 `json:"std_us"` // standard deviation around the mean
	// P50Us and P99Us are the deltas at those ranks: exact (1 µs
	// resolution) within FineHalfWidthUs of the nominal period; beyond it
	// the upper edge of a bucket of 1/100 of the nominal period (up to 5
	// nominal periods, then the maximum), clipped to [MinUs, MaxUs].
	P50Us          uint64 `json:"p50_us"`
	P99Us          uint64 `json:"p99_us"`
	MaxDevUs       uint64 `json:"max_dev_us"`       // largest |period - nominal|
	OutOfTolerance uint64 `json:"out_of_tolerance"` // periods with |period - nominal| > PeriodTolerance
}

// Histogram of the periods.
const (
	FineHalfWidthUs = 2048 // periods within this of the nominal one are counted per microsecond
	histBuckets     = 500  // coarse buckets of 1/100 of the nominal period beyond, up to 5 periods
	// MaxPeriodSteps bounds a period: a t_us step of more than this many
	// nominal periods between consecutive sequence numbers is a jump of the
	// emitter's clock (or a corrupt t_us), counted in Stats.TimeJumps and
	// left out of the period statistics.
	MaxPeriodSteps = 100
)

// periodScale is what the period statistics derive from the nominal rate.
type periodScale struct {
	nominalUs float64
	tolUs     uint64 // PeriodTolerance
	bucketUs  uint64 // coarse bucket width
	fineLo    uint64 // first microsecond counted finely
	maxUs     uint64 // longest step taken as a period
}

func newPeriodScale(nominalUs float64, tolUs uint64) periodScale {
	return periodScale{
		nominalUs: nominalUs,
		tolUs:     tolUs,
		bucketUs:  max(1, uint64(nominalUs/100)),
		fineLo:    uint64(max(0, nominalUs-FineHalfWidthUs)),
		maxUs:     uint64(min(MaxPeriodSteps*nominalUs, math.MaxInt64)),
	}
}

type periodAcc struct {
	n          uint64
	sum, sumSq float64
	min, max   uint64
	maxDev     uint64
	outTol     uint64
	fine       [2 * FineHalfWidthUs]uint32 // per µs from fineLo
	hist       [histBuckets + 1]uint32     // coarse, outside fine; last bucket: overflow
}

func (a *periodAcc) add(us uint64, sc *periodScale) {
	if a.n == 0 || us < a.min {
		a.min = us
	}
	if us > a.max {
		a.max = us
	}
	a.n++
	f := float64(us)
	a.sum += f
	a.sumSq += f * f
	dev := uint64(math.Round(math.Abs(f - sc.nominalUs)))
	a.maxDev = max(a.maxDev, dev)
	if dev > sc.tolUs {
		a.outTol++
	}
	if us >= sc.fineLo && us-sc.fineLo < uint64(len(a.fine)) {
		a.fine[us-sc.fineLo]++
	} else {
		a.hist[min(us/sc.bucketUs, histBuckets)]++
	}
}

func (a *periodAcc) stats(sc *periodScale) PeriodStats {
	if a.n == 0 {
		return PeriodStats{}
	}
	mean := a.sum / float64(a.n)
	v := a.sumSq/float64(a.n) - mean*mean
	return PeriodStats{
		Count:          a.n,
		MinUs:          a.min,
		MaxUs:          a.max,
		MeanUs:         mean,
		StdUs:          math.Sqrt(max(v, 0)),
		P50Us:          a.quantile(0.50, sc),
		P99Us:          a.quantile(0.99, sc),
		MaxDevUs:       a.maxDev,
		OutOfTolerance: a.outTol,
	}
}

// quantile walks the buckets in value order: the coarse ones below the
// fine range, the fine range, the coarse ones above it. (Below 2.5 Hz a
// coarse bucket is wider than the fine range and holds periods from both
// sides of it; they are then taken as below it.)
func (a *periodAcc) quantile(q float64, sc *periodScale) uint64 {
	rank := max(uint64(math.Ceil(q*float64(a.n))), 1)
	var c uint64
	i := 0
	coarse := func() (uint64, bool) {
		c += uint64(a.hist[i])
		if c < rank {
			return 0, false
		}
		if i == histBuckets {
			return a.max, true
		}
		return min(max(uint64(i+1)*sc.bucketUs, a.min), a.max), true
	}
	for ; i <= histBuckets && uint64(i)*sc.bucketUs < sc.fineLo; i++ {
		if v, ok := coarse(); ok {
			return v
		}
	}
	for j, n := range a.fine {
		if c += uint64(n); c >= rank {
			return sc.fineLo + uint64(j)
		}
	}
	for ; i <= histBuckets; i++ {
		if v, ok := coarse(); ok {
			return v
		}
	}
	return a.max
}
