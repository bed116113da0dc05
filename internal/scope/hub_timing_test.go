package scope

import (
	"math"
	"strconv"
	"testing"
)

// benchLimits keep 10 s, so that a short warm-up brings every level to its
// size (steady state).
var benchLimits = Limits{MaxWindow: 10e9, MaxHistoryBytes: 1 << 30}

// sines is a table of values for the benchmarks' updates.
var sines = func() []float64 {
	v := make([]float64, 1000)
	for i := range v {
		v[i] = 5 * math.Sin(2*math.Pi*float64(i)/100)
	}
	return v
}()

// scalarsHub is a hub of n scalar signals and the update that feeds them
// (values and times set by fill).
func scalarsHub(n int) (*Hub, *fakeUpdate) {
	sigs := make([]Signal, n)
	u := &fakeUpdate{vals: make([][]float64, n), times: make([][]float64, n)}
	for i := range sigs {
		sigs[i] = Signal{Name: "S" + strconv.Itoa(i), Type: "float64", Dims: "scalar", Elements: 1, Trace: true}
		u.vals[i], u.times[i] = make([]float64, 1), make([]float64, 1)
	}
	h := NewHub(benchLimits, quietLog())
	h.Configure(Info{}, sigs)
	return h, u
}

// fill makes update k of a 10 kHz stream.
func (u *fakeUpdate) fill(k int) {
	t := float64(k) / 1e4
	for i := range u.vals {
		u.vals[i][0] = sines[(k+i)%len(sines)]
		u.times[i][0] = t
	}
}

// BenchmarkPush is the receive side's cost per update: 100 scalars (one
// update of a 10 kHz × 100 signals stream) and the 1000-sample burst.
// Reported: ns per update and what that makes per second of one core.
func BenchmarkPush(b *testing.B) {
	b.Run("100-scalars", func(b *testing.B) {
		h, u := scalarsHub(100)
		for k := range 150_000 { // 15 s: every level at its size
			u.fill(k)
			h.push(u, false)
		}
		b.ReportAllocs()
		k := 150_000
		for b.Loop() {
			u.fill(k)
			h.push(u, false)
			k++
		}
		b.ReportMetric(1e9/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "updates/s-per-core")
	})
	b.Run("burst", func(b *testing.B) {
		h := NewHub(benchLimits, quietLog())
		h.Configure(Info{}, []Signal{{Name: "Ch1", Type: "float32", Dims: "[1000]", Elements: 1000, Trace: true, WaveX: "time"}})
		u := &fakeUpdate{vals: [][]float64{sines}, times: [][]float64{make([]float64, 1000)}}
		fill := func(k int) {
			for i := range 1000 {
				u.times[0][i] = float64(k)*1e-3 + float64(i)*1e-6
			}
		}
		for k := range 15_000 { // 15 s
			fill(k)
			h.push(u, false)
		}
		b.ReportAllocs()
		k := 15_000
		for b.Loop() {
			fill(k)
			h.push(u, false)
			k++
		}
		b.ReportMetric(1e9/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "updates/s-per-core")
	})
}

// BenchmarkFrame is one page's frame of 8 of those 100 scalars over a 5 s
// window, 1000 columns wide, from 15 s of history at 10 kHz.
func BenchmarkFrame(b *testing.B) {
	h, u := scalarsHub(100)
	for k := range 150_000 {
		u.fill(k)
		h.push(u, false)
	}
	traces := make([]traceRef, 8)
	for i := range traces {
		traces[i] = traceRef{Sig: i * 12, Kind: "trace"}
	}
	v, err := parseView(&viewMsg{Gen: 1, Live: true, From: -5, To: 0, Cols: 1000, Traces: traces}, h.lim)
	if err != nil {
		b.Fatal(err)
	}
	var sc frameScratch
	b.ReportAllocs()
	seq := uint32(0)
	for b.Loop() {
		seq++
		sinkFrame = h.appendFrame(&sc, &v, seq)
	}
	b.ReportMetric(float64(len(sinkFrame)), "frame-bytes")
}
