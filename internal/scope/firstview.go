package scope

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"time"
)

// The first view is what a page plots before the person picks anything.
// It is chosen from the signal list and the first updates, never from
// names: a signal whose values match another's at every one of the first
// updates (the same value written to several signals, quantised or
// converted) is a copy, and only the most exact of them is shown; an
// integer signal that rises at every update is a counter or a time stamp,
// and a signal that is another's time signal, neither of which is plotted
// first. Floats come before integers, and the view stops at
// firstViewTraces traces in firstViewPlots plots.
const (
	probeUpdates    = 100         // updates compared before the choice
	probeWait       = time.Second // after the first update, choose with fewer, if at least probeMin
	probeMin        = 16
	probeMaxWait    = 3 * time.Second // after Configure, choose with any number, even none
	minCounterRuns  = 8               // updates a counter must rise over to be called one
	firstViewTraces = 8
	firstViewPlots  = 3
	// copyRelTol is the relative difference two copies may show besides
	// their quantisation steps: a float32 copy of a float64 value.
	copyRelTol = 1e-6
)

// FirstTrace is one trace of the first view.
type FirstTrace struct {
	Sig  int    `json:"sig"`
	Kind string `json:"kind"` // "trace" or "wave"
}

// probe compares the scalar signals over the first updates after
// Configure. Guarded by the Hub's lock; push feeds it, tick ends it.
type probe struct {
	cands    []int     // signal index of each scalar compared
	group    []int     // per candidate: signals of one unit and clock share a group
	same     []uint64  // row a, bit b (b < a): candidates a and b matched at every update
	words    int       // uint64 per row
	cur, old []float64 // per candidate: this update's value, the previous one's
	rising   []bool    // per candidate: integer and rising at every update so far
	n        int       // updates compared
	start    time.Time // Configure
	first    time.Time // the first update
	done     bool
}

// newProbe prepares the comparison of sigs' scalars.
func newProbe(sigs []Signal, now time.Time) probe {
	p := probe{start: now}
	groups := map[[2]any]int{}
	for i := range sigs {
		s := &sigs[i]
		if s.Elements != 1 || !s.Trace || s.Text {
			continue
		}
		key := [2]any{s.Unit, s.Clock}
		g, ok := groups[key]
		if !ok {
			g = len(groups)
			groups[key] = g
		}
		p.cands = append(p.cands, i)
		p.group = append(p.group, g)
	}
	n := len(p.cands)
	p.words = (n + 63) / 64
	p.same = make([]uint64, n*p.words)
	p.cur, p.old = make([]float64, n), make([]float64, n)
	p.rising = make([]bool, n)
	return p
}

// observe compares one update; sigs gives each candidate's quantisation
// step.
func (p *probe) observe(u update, sigs []Signal, now time.Time) {
	if p.n == 0 {
		p.first = now
	}
	for a, i := range p.cands {
		p.cur[a] = u.Values(i)[0]
	}
	for a := range p.cands {
		row := p.same[a*p.words : (a+1)*p.words]
		x, sa := p.cur[a], sigs[p.cands[a]].step
		if p.n == 0 {
			for b := range a {
				if p.group[b] == p.group[a] && near(x, p.cur[b], sa+sigs[p.cands[b]].step) {
					row[b/64] |= 1 << (b % 64)
				}
			}
			p.rising[a] = x == math.Trunc(x)
			continue
		}
		for w, set := range row {
			for set != 0 {
				k := bits.TrailingZeros64(set)
				set &^= 1 << k
				b := w*64 + k
				if !near(x, p.cur[b], sa+sigs[p.cands[b]].step) {
					row[w] &^= 1 << k
				}
			}
		}
		p.rising[a] = p.rising[a] && x == math.Trunc(x) && x > p.old[a]
	}
	p.cur, p.old = p.old, p.cur
	p.n++
}

// near reports whether x and y are one value up to tol (the sum of their
// quantisation steps) and a float32's rounding.
func near(x, y, tol float64) bool {
	return math.Abs(x-y) <= tol+copyRelTol*max(math.Abs(x), math.Abs(y))
}

// due reports whether the probe has seen enough to choose.
func (p *probe) due(now time.Time) bool {
	return !p.done && (p.n >= probeUpdates || (p.n >= probeMin && now.Sub(p.first) >= probeWait) || now.Sub(p.start) >= probeMaxWait)
}

// annotate marks, on a copy of sigs, each copy with its chosen original
// and each counter, from what the probe saw.
func (p *probe) annotate(sigs []Signal) []Signal {
	out := slices.Clone(sigs)
	if p.n == 0 {
		return out
	}
	// Copies: classes of candidates that matched at every update, each
	// shown as its most exact member.
	root := make([]int, len(p.cands))
	for a := range root {
		root[a] = a
	}
	find := func(a int) int {
		for root[a] != a {
			root[a] = root[root[a]]
			a = root[a]
		}
		return a
	}
	for a := range p.cands {
		for b := range a {
			if p.same[a*p.words+b/64]&(1<<(b%64)) != 0 {
				root[find(a)] = find(b)
			}
		}
	}
	best := map[int]int{} // class root to its best candidate
	for a := range p.cands {
		r := find(a)
		if b, ok := best[r]; !ok || exactness(&sigs[p.cands[a]]) > exactness(&sigs[p.cands[b]]) {
			best[r] = a
		}
	}
	for a, i := range p.cands {
		if b := best[find(a)]; b != a {
			out[i].CopyOf = sigs[p.cands[b]].Name
		}
		out[i].Counter = p.n >= minCounterRuns && p.rising[a]
	}
	return out
}

// exactness ranks the members of a class of copies: unquantised first,
// then floats, then the widest element.
func exactness(s *Signal) int {
	r := s.size
	if s.float {
		r += 16
	}
	if s.step == 0 {
		r += 32
	}
	return r
}

// chooseFirstView picks the first view's traces from annotated signals.
func chooseFirstView(sigs []Signal) []FirstTrace {
	type cand struct {
		ft  FirstTrace
		key string // the plot it goes to
	}
	var floats, others []cand
	for i := range sigs {
		s := &sigs[i]
		if s.Text || s.timeOf || s.CopyOf != "" || s.Counter {
			continue
		}
		c := cand{ft: FirstTrace{Sig: i, Kind: "trace"}, key: "time|" + s.Unit}
		if !s.Trace {
			if s.Elements < 2 {
				continue
			}
			c.ft.Kind, c.key = "wave", "wave-"+s.WaveX+"|"+s.Unit
		}
		if s.float {
			floats = append(floats, c)
		} else {
			others = append(others, c)
		}
	}
	var out []FirstTrace
	var plots []string
	for _, c := range append(floats, others...) {
		if len(out) == firstViewTraces {
			break
		}
		if !slices.Contains(plots, c.key) {
			if len(plots) == firstViewPlots {
				continue
			}
			plots = append(plots, c.key)
		}
		out = append(out, c.ft)
	}
	slices.SortStableFunc(out, func(a, b FirstTrace) int { return cmp.Compare(a.Sig, b.Sig) })
	return out
}
