package scope

import "math"

// Limits of one series' history.
const (
	// maxLevels bounds the levels of a series: level 0 holds the samples,
	// level k the minimum and maximum of every 2·4^k samples.
	maxLevels = 12
	// groupPoints points of level k make one min/max pair of level k+1.
	groupPoints = 8
	// rawMaxCap and levelMaxCap cap the points of level 0 and of the
	// others (1 MiB each): a level can cover any window it is picked for
	// (maxScan points).
	rawMaxCap   = 1 << 16
	levelMaxCap = maxScan
	// initialCap is a level's capacity when it is created.
	initialCap = 64
	// resetJump is how far back in time (seconds) a sample must go to
	// restart the history (a restarted server or a wrapped time signal);
	// smaller steps back are dropped as out of order.
	resetJump = 1.0
)

// series is the bounded history of one channel: its samples at level 0
// and, above, min/max pairs that let a window of any length up to the
// history's be drawn by scanning a bounded number of points. Gaps are NaN
// points at every level. Not safe for concurrent use (the Hub's lock).
type series struct {
	levels []*ring // levels[0] is the samples; a level is made when first needed
	acc    [maxLevels]accumulator
	keep   float64 // seconds a level keeps when it may still grow
	b      *budget

	hasLast      bool
	lastT, lastV float64
	disordered   uint64 // samples dropped for going back in time, or with a non-finite time
}

// accumulator gathers groupPoints points of one level into the min/max pair
// it hands the next level.
type accumulator struct {
	n                  int
	loT, loV, hiT, hiV float64
	gap                bool // the last point was NaN and was passed up: pass a run once
}

func newSeries(keep float64, b *budget) *series {
	return &series{keep: keep, b: b}
}

// last returns the newest sample.
func (s *series) last() (t, v float64, ok bool) { return s.lastT, s.lastV, s.hasLast }

// append adds samples in time order. With gap, a NaN point first marks a
// break between the previous sample and these (a lost update, a silence).
func (s *series) append(ts, vs []float64, gap bool) {
	for k, t := range ts {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			s.disordered++
			continue
		}
		if s.hasLast && t < s.lastT {
			if s.lastT-t < resetJump {
				s.disordered++
				continue
			}
			s.reset()
		}
		if gap && s.hasLast {
			s.push(0, s.lastT+(t-s.lastT)/2, math.NaN())
			gap = false
		}
		s.push(0, t, vs[k])
		s.hasLast, s.lastT, s.lastV = true, t, vs[k]
	}
}

// reset forgets the history and gives its memory back.
func (s *series) reset() {
	for _, r := range s.levels {
		if r != nil {
			s.b.give(int64(len(r.t)) * pointBytes)
		}
	}
	s.levels = s.levels[:0]
	s.acc = [maxLevels]accumulator{}
	s.hasLast = false
}

// level returns level k, making the levels up to it when the budget
// allows; nil when it does not.
func (s *series) level(k int) *ring {
	for len(s.levels) <= k {
		if !s.b.take(initialCap * pointBytes) {
			return nil
		}
		s.levels = append(s.levels, newRing(initialCap))
	}
	return s.levels[k]
}

// addLevel adds a level above the top one, filled from the top level's
// points: it reaches as far back as they do. A level is added only when
// the top one holds more than minScan points, so a slow signal keeps few
// levels, and a series that has held its longest window for a while stops
// allocating.
func (s *series) addLevel() {
	top := len(s.levels) - 1
	r := s.levels[top]
	if s.level(top+1) == nil {
		return
	}
	s.levels[top+1].dropped = r.dropped
	s.acc[top] = accumulator{}
	for i := range r.n {
		t, v := r.at(i)
		s.feed(top, t, v)
	}
}

func levelCap(k int) int {
	if k == 0 {
		return rawMaxCap
	}
	return levelMaxCap
}

// push adds a point to level k and feeds level k+1, adding that level when
// level k has grown past minScan points.
func (s *series) push(k int, t, v float64) {
	r := s.level(k)
	if r == nil {
		return
	}
	r.push(t, v, s.keep, levelCap(k), s.b)
	switch {
	case k+1 < len(s.levels):
		s.feed(k, t, v)
	case k+1 < maxLevels && r.n > minScan:
		s.addLevel()
	}
}

// feed gives a point of level k to the accumulator that builds level k+1.
func (s *series) feed(k int, t, v float64) {
	a := &s.acc[k]
	if math.IsNaN(v) {
		s.flush(k)
		if !a.gap {
			a.gap = true
			s.push(k+1, t, v)
		}
		return
	}
	a.gap = false
	if a.n == 0 {
		a.loT, a.loV, a.hiT, a.hiV = t, v, t, v
	} else if v < a.loV {
		a.loT, a.loV = t, v
	} else if v > a.hiV {
		a.hiT, a.hiV = t, v
	}
	a.n++
	if a.n == groupPoints {
		s.flush(k)
	}
}

// flush hands level k's partial group to level k+1 as its minimum and
// maximum in time order (one point when they are the same sample).
func (s *series) flush(k int) {
	a := &s.acc[k]
	if a.n == 0 {
		return
	}
	a.n = 0
	if a.loT == a.hiT && a.loV == a.hiV {
		s.push(k+1, a.loT, a.loV)
		return
	}
	t1, v1, t2, v2 := a.loT, a.loV, a.hiT, a.hiV
	if t2 < t1 {
		t1, v1, t2, v2 = t2, v2, t1, v1
	}
	s.push(k+1, t1, v1)
	s.push(k+1, t2, v2)
}

// pick chooses the finest level that reaches back to t0 and holds at most
// scanMax points in [t0, t1], and returns it with the logical range to
// draw: those points plus one on each side, so lines reach the edges. When
// no level qualifies it returns the coarsest, clipped to its newest scanMax
// points. It returns a nil ring for an empty history.
func (s *series) pick(t0, t1 float64, scanMax int) (r *ring, level, i, j int) {
	for k, lv := range s.levels {
		if lv.n == 0 {
			continue
		}
		i, j := lv.search(t0), lv.searchAfter(t1)
		covers := !lv.dropped || lv.oldest() <= t0
		if covers && j-i <= scanMax {
			return lv, k, max(i-1, 0), min(j+1, lv.n)
		}
		r, level = lv, k
	}
	if r == nil {
		return nil, 0, 0, 0
	}
	i, j = r.search(t0), r.searchAfter(t1)
	i = max(i-1, 0, j-scanMax)
	return r, level, i, min(j+1, r.n)
}

// searchAfter returns the logical index of the first point whose time is
// after t.
func (r *ring) searchAfter(t float64) int {
	lo, hi := 0, r.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tm, _ := r.at(m); tm <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
