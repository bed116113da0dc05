package scope

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// column of t for cols columns of [t0, t1], as the decimator computes it.
func columnOf(t, t0, t1 float64, cols int) int {
	return min(int((t-t0)*float64(cols)/(t1-t0)), cols-1)
}

func decimate(ts, vs []float64, t0, t1 float64, cols int) Points {
	var out Points
	var d decimator
	d.reset(&out, t0, t1, cols)
	d.add(ts, vs)
	d.finish()
	return out
}

// TestDecimatorKeepsEveryColumnsExtremes: every output point is an input
// point, in time order, at most three per column, and each column's
// minimum and maximum are among them.
func TestDecimatorKeepsEveryColumnsExtremes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + rng.IntN(5000)
		cols := 1 + rng.IntN(300)
		ts, vs := make([]float64, n), make([]float64, n)
		tt := 0.0
		for k := range n {
			tt += rng.Float64() * 1e-3
			ts[k], vs[k] = tt, rng.NormFloat64()
		}
		t0, t1 := ts[0], ts[n-1]
		if t1 == t0 {
			t1 = t0 + 1
		}
		out := decimate(ts, vs, t0, t1, cols)
		in := map[[2]float64]bool{}
		for k := range ts {
			in[[2]float64{ts[k], vs[k]}] = true
		}
		perCol := make([]int, cols)
		for k := range out.T {
			if !in[[2]float64{out.T[k], out.V[k]}] {
				t.Fatalf("trial %d: output point (%v, %v) is not an input point", trial, out.T[k], out.V[k])
			}
			if k > 0 && out.T[k] < out.T[k-1] {
				t.Fatalf("trial %d: output not in time order at %d", trial, k)
			}
			perCol[columnOf(out.T[k], t0, t1, cols)]++
		}
		if m := slices.Max(perCol); m > 3 {
			t.Fatalf("trial %d: a column has %d points", trial, m)
		}
		lo, hi := make([]float64, cols), make([]float64, cols)
		for c := range cols {
			lo[c], hi[c] = math.Inf(1), math.Inf(-1)
		}
		for k := range ts {
			c := columnOf(ts[k], t0, t1, cols)
			lo[c], hi[c] = min(lo[c], vs[k]), max(hi[c], vs[k])
		}
		for c := range cols {
			if math.IsInf(lo[c], 1) {
				continue
			}
			var gotLo, gotHi bool
			for k := range out.T {
				if columnOf(out.T[k], t0, t1, cols) == c {
					gotLo = gotLo || out.V[k] == lo[c]
					gotHi = gotHi || out.V[k] == hi[c]
				}
			}
			if !gotLo || !gotHi {
				t.Fatalf("trial %d: column %d lost its min %v (%v) or max %v (%v)", trial, c, lo[c], gotLo, hi[c], gotHi)
			}
		}
	}
}

// TestDecimatorExactOnSmallInput: a few points, one per column at most,
// come out unchanged.
func TestDecimatorExactOnSmallInput(t *testing.T) {
	ts := []float64{0, 0.1, 0.25, 0.5, 0.9, 1}
	vs := []float64{3, -1, 7, 7, 2, 0}
	out := decimate(ts, vs, 0, 1, 10)
	if !slices.Equal(out.T, ts) || !slices.Equal(out.V, vs) {
		t.Fatalf("got %v %v, want %v %v", out.T, out.V, ts, vs)
	}
}

// TestDecimatorOneColumn: a column's min and max in time order, the same
// sample once, a break kept.
func TestDecimatorOneColumn(t *testing.T) {
	for _, c := range []struct {
		name         string
		ts, vs       []float64
		wantT, wantV []float64
	}{
		{"max first", []float64{0, 1, 2, 3}, []float64{1, 9, -4, 2}, []float64{1, 2}, []float64{9, -4}},
		{"min first", []float64{0, 1, 2, 3}, []float64{1, -4, 9, 2}, []float64{1, 2}, []float64{-4, 9}},
		{"constant", []float64{0, 1, 2}, []float64{5, 5, 5}, []float64{0}, []float64{5}},
		{"break between", []float64{0, 1, 2, 3}, []float64{1, math.NaN(), math.NaN(), 8}, []float64{0, 1, 3}, []float64{1, math.NaN(), 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := decimate(c.ts, c.vs, 0, 3, 1)
			if !slices.Equal(out.T, c.wantT) || !equalNaN(out.V, c.wantV) {
				t.Fatalf("got %v %v, want %v %v", out.T, out.V, c.wantT, c.wantV)
			}
		})
	}
}

func equalNaN(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) })
}

func newTestSeries() *series { return newSeries(60, &budget{max: 1 << 30}) }

// TestSeriesQueryExactOnSmallHistory: a history of fewer points than two
// per column comes back whole, from the samples themselves.
func TestSeriesQueryExactOnSmallHistory(t *testing.T) {
	s := newTestSeries()
	var ts, vs []float64
	for k := range 100 {
		ts, vs = append(ts, float64(k)*1e-3), append(vs, math.Sin(float64(k)))
	}
	s.append(ts, vs, false)
	var out Points
	var d decimator
	if lv := s.query(&out, &d, 0, 0.099, 50); lv != 0 {
		t.Fatalf("level %d, want 0", lv)
	}
	if !slices.Equal(out.T, ts) || !slices.Equal(out.V, vs) {
		t.Fatalf("query changed the samples")
	}
}

// TestSeriesSpikeSurvivesEveryLevel: one spike in a million samples (a
// 1 MS/s second) is in the drawing of every window that holds it, at
// every level the query picks.
func TestSeriesSpikeSurvivesEveryLevel(t *testing.T) {
	s := newTestSeries()
	const n, rate = 1_000_000, 1e6
	const spikeAt = 765_432
	ts, vs := make([]float64, 1000), make([]float64, 1000)
	for u := range n / 1000 {
		for k := range 1000 {
			i := u*1000 + k
			ts[k], vs[k] = float64(i)/rate, math.Sin(float64(i)*2*math.Pi/100)
			if i == spikeAt {
				vs[k] = 50
			}
			if i == spikeAt+10 {
				vs[k] = -60
			}
		}
		s.append(ts, vs, false)
	}
	spikeT := float64(spikeAt) / rate
	levels := map[int]bool{}
	var out Points
	var d decimator
	for _, w := range []float64{1e-4, 1e-3, 1e-2, 0.1, 0.5, 1} {
		for _, cols := range []int{100, 1000} {
			out.reset()
			t1 := math.Min(spikeT+w/3, float64(n-1)/rate)
			lv := s.query(&out, &d, t1-w, t1, cols)
			levels[lv] = true
			if !slices.Contains(out.V, 50) || !slices.Contains(out.V, -60) {
				t.Fatalf("window %v s, %d columns, level %d: the spikes are gone", w, cols, lv)
			}
			if len(out.T) > 3*cols+2 {
				t.Fatalf("window %v s, %d columns: %d points", w, cols, len(out.T))
			}
		}
	}
	if len(levels) < 3 {
		t.Fatalf("queries used levels %v only", levels)
	}
}

// TestSeriesGapAndReset: a gap is a NaN point between the samples it
// separates; a jump back in time beyond resetJump restarts the history;
// a small one is dropped and counted.
func TestSeriesGapAndReset(t *testing.T) {
	s := newTestSeries()
	s.append([]float64{1, 2}, []float64{10, 20}, false)
	s.append([]float64{4}, []float64{40}, true)
	var out Points
	var d decimator
	s.query(&out, &d, 0, 5, 100)
	if !slices.Equal(out.T, []float64{1, 2, 3, 4}) || !equalNaN(out.V, []float64{10, 20, math.NaN(), 40}) {
		t.Fatalf("got %v %v", out.T, out.V)
	}
	s.append([]float64{3.5}, []float64{0}, false)
	if s.disordered != 1 {
		t.Fatalf("disordered %d, want 1", s.disordered)
	}
	s.append([]float64{0.5}, []float64{5}, false)
	out.reset()
	s.query(&out, &d, 0, 5, 100)
	if !slices.Equal(out.T, []float64{0.5}) {
		t.Fatalf("after a reset got %v", out.T)
	}
}

// TestSeriesMemoryBounded: a long fast history stays within the budget
// and within the caps of its levels.
func TestSeriesMemoryBounded(t *testing.T) {
	b := &budget{max: 4 << 20}
	s := newSeries(60, b)
	ts, vs := make([]float64, 1000), make([]float64, 1000)
	for u := range 3000 { // 3 s at 1 MS/s
		for k := range ts {
			ts[k], vs[k] = float64(u*1000+k)/1e6, float64(k)
		}
		s.append(ts, vs, false)
	}
	var held int64
	for k, r := range s.levels {
		held += int64(len(r.t)) * pointBytes
		if len(r.t) > levelCap(k) {
			t.Fatalf("level %d capacity %d > %d", k, len(r.t), levelCap(k))
		}
	}
	if held != b.used || b.used > b.max {
		t.Fatalf("held %d, budget used %d of %d", held, b.used, b.max)
	}
	s.reset()
	if b.used != 0 {
		t.Fatalf("after reset the budget holds %d", b.used)
	}
}

func TestRingWrapsAndSearches(t *testing.T) {
	b := &budget{max: 1 << 20}
	r := newRing(4)
	for k := range 10 {
		r.push(float64(k), float64(-k), 0, 4, b) // keep 0: never grows
	}
	if r.n != 4 || !r.dropped || r.oldest() != 6 {
		t.Fatalf("n %d dropped %v oldest %v", r.n, r.dropped, r.oldest())
	}
	if i := r.search(7.5); i != 2 {
		t.Fatalf("search(7.5) = %d", i)
	}
	if i := r.searchAfter(7); i != 2 {
		t.Fatalf("searchAfter(7) = %d", i)
	}
	ta, _, tb, _ := r.span(1, 4)
	if got := append(slices.Clone(ta), tb...); !slices.Equal(got, []float64{7, 8, 9}) {
		t.Fatalf("span = %v", got)
	}
	r.push(10, 0, 100, 8, b)
	if len(r.t) != 8 || r.oldest() != 6 || r.n != 5 {
		t.Fatalf("after growth: cap %d oldest %v", len(r.t), r.oldest())
	}
}

var sinkLevel int

// TestNoAllocsAppendQuery: once the levels have reached their size,
// appending an update and drawing a window allocate nothing.
func TestNoAllocsAppendQuery(t *testing.T) {
	testenv.SkipIfRace(t)
	s := newSeries(1, &budget{max: 1 << 30})
	ts, vs := make([]float64, 1000), make([]float64, 1000)
	u := 0
	step := func() {
		for k := range ts {
			ts[k], vs[k] = float64(u*1000+k)/1e6, float64(k%97)
		}
		u++
		s.append(ts, vs, u%50 == 0)
	}
	for range 3000 {
		step()
	}
	var out Points
	var d decimator
	out.T, out.V = make([]float64, 0, 4*MaxColumns), make([]float64, 0, 4*MaxColumns)
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Errorf("append: %v allocations per update", n)
	}
	if n := testing.AllocsPerRun(200, func() {
		out.reset()
		last, _, _ := s.last()
		sinkLevel = s.query(&out, &d, last-0.5, last, 1000)
	}); n != 0 {
		t.Errorf("query: %v allocations", n)
	}
}
