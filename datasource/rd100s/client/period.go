package client

import "math"

// PeriodStats describes the emission period measured from t_us deltas of
// consecutive in-order packets, in microseconds.
type PeriodStats struct {
	Count  uint64  `json:"count"` // deltas accumulated
	MinUs  uint64  `json:"min_us"`
	MaxUs  uint64  `json:"max_us"`
	MeanUs float64 `json:"mean_us"`
	StdUs  float64 `json:"std_us"` // standard deviation around the mean
	// P50Us and P99Us come from a histogram with buckets of 1/100 of the
	// nominal period up to 5 nominal periods; they are the upper edge of
	// the bucket holding the quantile, clipped to [MinUs, MaxUs].
	P50Us          uint64 `json:"p50_us"`
	P99Us          uint64 `json:"p99_us"`
	MaxDevUs       uint64 `json:"max_dev_us"`       // largest |period - nominal|
	OutOfTolerance uint64 `json:"out_of_tolerance"` // periods with |period - nominal| > PeriodTolerance
}

const histBuckets = 500

type periodAcc struct {
	n          uint64
	sum, sumSq float64
	min, max   uint64
	maxDev     uint64
	outTol     uint64
	hist       [histBuckets + 1]uint32 // last bucket: overflow
}

func (a *periodAcc) add(us uint64, nominalUs float64, tolUs, bucketUs uint64) {
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
	dev := uint64(math.Round(math.Abs(f - nominalUs)))
	a.maxDev = max(a.maxDev, dev)
	if dev > tolUs {
		a.outTol++
	}
	a.hist[min(us/bucketUs, histBuckets)]++
}

func (a *periodAcc) stats(nominalUs float64, bucketUs uint64) PeriodStats {
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
		P50Us:          a.quantile(0.50, bucketUs),
		P99Us:          a.quantile(0.99, bucketUs),
		MaxDevUs:       a.maxDev,
		OutOfTolerance: a.outTol,
	}
}

func (a *periodAcc) quantile(q float64, bucketUs uint64) uint64 {
	rank := uint64(math.Ceil(q * float64(a.n)))
	rank = max(rank, 1)
	var c uint64
	for i, h := range a.hist {
		c += uint64(h)
		if c >= rank {
			if i == histBuckets {
				return a.max
			}
			return min(max(uint64(i+1)*bucketUs, a.min), a.max)
		}
	}
	return a.max
}
