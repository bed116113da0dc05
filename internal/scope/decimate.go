package scope

import "math"

// Points is a list of (time, value) points in time order; a NaN value is a
// break in the line.
type Points struct {
	T, V []float64
}

func (p *Points) reset() { p.T, p.V = p.T[:0], p.V[:0] }

func (p *Points) add(t, v float64) {
	p.T = append(p.T, t)
	p.V = append(p.V, v)
}

// Len returns the number of points.
func (p *Points) Len() int { return len(p.T) }

// Decimation bounds.
const (
	// MaxColumns caps the columns a viewer may ask for (a 4K screen's width).
	MaxColumns = 4096
	// scanPerColumn, minScan and maxScan bound the points one trace of one
	// frame scans. A level is picked when its points in the window are at
	// most scanPerColumn per column, so at least a quarter of that (the
	// levels are 4 times apart): each column then sees several min/max
	// pairs and is drawn as a full vertical stroke.
	scanPerColumn = 16
	minScan       = 4096
	maxScan       = scanPerColumn * MaxColumns
)

func scanLimit(cols int) int { return min(max(scanPerColumn*cols, minScan), maxScan) }

// decimator reduces time-ordered points to what cols pixel columns of
// [t0, t1] can show: in each column its minimum and its maximum, in time
// order, and the first break (NaN) if it holds one, so a one-sample spike
// survives any reduction. Points outside [t0, t1] pass unchanged. It keeps
// the points it is given, never averages: every output point is an input
// point.
type decimator struct {
	out       *Points
	t0, t1    float64
	scale     float64 // columns per second
	cols, col int     // col: the column being gathered, -1 for none

	n                  int // finite points in the column
	loT, loV, hiT, hiV float64
	gap                bool
	gapT               float64
}

func (d *decimator) reset(out *Points, t0, t1 float64, cols int) {
	*d = decimator{out: out, t0: t0, t1: t1, cols: cols, col: -1}
	if t1 > t0 {
		d.scale = float64(cols) / (t1 - t0)
	}
}

// column returns the column of time t: -1 before the window, cols after it.
func (d *decimator) column(t float64) int {
	switch {
	case t < d.t0:
		return -1
	case t > d.t1:
		return d.cols
	}
	return min(int((t-d.t0)*d.scale), d.cols-1)
}

// add gathers points; call it with consecutive runs, then finish.
func (d *decimator) add(ts, vs []float64) {
	for k, t := range ts {
		v := vs[k]
		c := d.column(t)
		if c != d.col {
			d.flush()
			d.col = c
		}
		if c < 0 || c >= d.cols {
			d.out.add(t, v)
			continue
		}
		switch {
		case math.IsNaN(v):
			if !d.gap {
				d.gap, d.gapT = true, t
			}
		case d.n == 0:
			d.loT, d.loV, d.hiT, d.hiV = t, v, t, v
			d.n = 1
		default:
			if v < d.loV {
				d.loT, d.loV = t, v
			} else if v > d.hiV {
				d.hiT, d.hiV = t, v
			}
			d.n++
		}
	}
}

// finish emits the last column.
func (d *decimator) finish() { d.flush() }

// flush emits the gathered column: its minimum, maximum and break in time
// order, a sample that is both minimum and maximum once.
func (d *decimator) flush() {
	var ts, vs [3]float64
	m := 0
	if d.n > 0 {
		ts[0], vs[0] = d.loT, d.loV
		m = 1
		if d.hiT != d.loT || d.hiV != d.loV {
			ts[1], vs[1] = d.hiT, d.hiV
			m = 2
		}
	}
	if d.gap {
		ts[m], vs[m] = d.gapT, math.NaN()
		m++
	}
	// Insertion sort of at most three points by time; ties keep their order.
	for a := 1; a < m; a++ {
		for b := a; b > 0 && ts[b] < ts[b-1]; b-- {
			ts[b], ts[b-1] = ts[b-1], ts[b]
			vs[b], vs[b-1] = vs[b-1], vs[b]
		}
	}
	for a := range m {
		d.out.add(ts[a], vs[a])
	}
	d.n, d.gap = 0, false
}

// query appends to out what cols columns of [t0, t1] show of s, and
// returns the level it read (0: the samples themselves). When the window
// holds at most two points per column they are all given, unreduced.
func (s *series) query(out *Points, d *decimator, t0, t1 float64, cols int) (level int) {
	r, level, i, j := s.pick(t0, t1, scanLimit(cols))
	if r == nil {
		return 0
	}
	ta, va, tb, vb := r.span(i, j)
	if j-i <= 2*cols {
		out.T = append(append(out.T, ta...), tb...)
		out.V = append(append(out.V, va...), vb...)
		return level
	}
	d.reset(out, t0, t1, cols)
	d.add(ta, va)
	d.add(tb, vb)
	d.finish()
	return level
}
