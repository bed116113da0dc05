package quant

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var exhaustive = flag.Bool("quant.exhaustive", false, "TestFloat32Exhaustive: check every float32 bit pattern (a minute or more)")

// TestFloat32AloneIsNotEnough shows why the float32 kernels check for ties:
// float32 arithmetic alone gives a different code for v = -1e-10 with uint8
// over [-1, 1], and the kernels still give the float64 code.
func TestFloat32AloneIsNotEnough(t *testing.T) {
	q := mustNew(t, Uint8, -1, 1)
	if !q.f32 {
		t.Fatal("uint8 over [-1, 1] does not use float32 arithmetic")
	}
	v := float32(-1e-10)
	// v*scale32 is exact in float64 and the sum rounds to float32 exactly as
	// a float32 fused multiply-add would here.
	t32 := float32(math.FMA(float64(v), float64(q.scale32), float64(q.bias32)))
	if t32 != 127.5 || q.Code(float64(v)) != 127 {
		t.Fatalf("t32 = %v, float64 code %d: the example no longer shows the problem", t32, q.Code(float64(v)))
	}
	src := make([]float32, 64)
	for i := range src {
		src[i] = v
	}
	for _, k := range append(kernels(), kernelPortable) {
		dst := make([]byte, len(src))
		q.encodeFloat32With(k, dst, src)
		for i, c := range dst {
			if c != 127 {
				t.Fatalf("%v: code %d at %d, want 127", k, c, i)
			}
		}
	}
}

// TestFloat32Window checks which quantizers use float32 arithmetic and the
// window around ties they check.
func TestFloat32Window(t *testing.T) {
	for _, c := range []struct {
		w        WireType
		min, max float64
		f32      bool
		window   float64 // 0.5 - edge32, about
	}{
		{Uint8, -1, 1, true, 0x1p-17},
		{Int8, -1, 1, true, 0x1p-17},
		{Uint16, -1, 1, true, 0x1p-9},
		{Int16, -1, 1, true, 0x1p-9},
		{Uint16, -10, 10, true, 0x1p-9},
		{Uint16, 0, 65535, true, 0x1p-9},
		{Uint16, 1e6, 1e6 + 1, false, 0},        // bias32 off by many steps
		{Uint16, 1000, 1001, true, 0x1p-9},      // bias32 exact: -65535000
		{Uint16, 1000.1, 1001.1, false, 0},      // bias32 inexact, off by steps
		{Uint8, 1e5 + 0.1, 1e5 + 1.1, false, 0}, // bias32 off by steps at 8 bits too
		{Uint16, -273.15, 1e4, true, 0x1p-8},    // inexact constants: a wider window
		{Int16, -1e-300, 1e-300, false, 0},      // scale beyond float32
		{Uint8, -1e300, 1e300, false, 0},        // scale below float32's normals
	} {
		q := mustNew(t, c.w, c.min, c.max)
		window := 0.5 - float64(q.edge32)
		t.Logf("%v [%v, %v]: f32 %v, window %.3g (2^%.1f)", c.w, c.min, c.max, q.f32, window, math.Log2(window))
		if q.f32 != c.f32 {
			t.Errorf("%v [%v, %v]: f32 = %v, want %v", c.w, c.min, c.max, q.f32, c.f32)
		}
		if c.f32 && !(window >= c.window && window <= 2*c.window) {
			t.Errorf("%v [%v, %v]: window %g, want about %g", c.w, c.min, c.max, window, c.window)
		}
	}
}

// noWiden keeps the float32 loops from widening the rest of a slice until
// the test ends, so that every lane goes through the float32 path or its
// redo: dense runs of samples near ties, as these tests feed, would be
// widened.
func noWiden(t *testing.T) {
	widen = false
	t.Cleanup(func() { widen = true })
}

// compareFloat32 encodes src with every kernel and fails at the first
// sample whose code differs from the portable kernel's.
func compareFloat32(t *testing.T, q *Quantizer, src []float32, want, got []byte) {
	t.Helper()
	size := q.w.Size()
	want, got = want[:len(src)*size], got[:len(src)*size]
	nw := encodePortable(q, want, src)
	for _, k := range kernels() {
		n := q.encodeFloat32With(k, got, src)
		if n == nw && bytes.Equal(got, want) {
			continue
		}
		for i := range src {
			if !bytes.Equal(got[i*size:(i+1)*size], want[i*size:(i+1)*size]) {
				t.Fatalf("%v [%v, %v] (f32 %v): %v gives code %d for %v (%#08x), portable %d",
					q.w, q.min, q.max, q.f32, k, decodeCode(q.w, got[i*size:]), src[i], math.Float32bits(src[i]), decodeCode(q.w, want[i*size:]))
			}
		}
		t.Fatalf("%v [%v, %v]: %v counts %d NaNs, portable %d", q.w, q.min, q.max, k, n, nw)
	}
}

// tieNeighbours appends to s the float32 values within n steps of each
// sampled tie between two codes, where float32 arithmetic is least sure.
func tieNeighbours(s []float32, q *Quantizer, n int) []float32 {
	stride := int32(1)
	if q.w.Size() == 2 {
		stride = 97
	}
	for c := q.minCode(); c < q.maxCode(); c += stride {
		v := float32((q.Value(c) + q.Value(c+1)) / 2)
		if math.IsInf(float64(v), 0) {
			continue
		}
		for range n {
			v = math.Nextafter32(v, float32(math.Inf(-1)))
		}
		for range 2*n + 1 {
			s = append(s, v)
			v = math.Nextafter32(v, float32(math.Inf(1)))
		}
	}
	return s
}

// TestFloat32Sampled checks the float32 kernels against the portable one
// near every tie (every 97th for 16-bit codes), near zero and over the
// range, for the table's ranges, [-1, 1], [0, L] and random ranges.
func TestFloat32Sampled(t *testing.T) {
	noWiden(t)
	rng := rand.New(rand.NewPCG(11, 12))
	ranges := append([][2]float64{{-1, 1}, {-2.7, 3.1}, {-0.3, 1e-3}}, testRanges...)
	for range 20 {
		mid, span := math.Ldexp(rng.NormFloat64(), rng.IntN(12)-6), math.Ldexp(1+rng.Float64(), rng.IntN(12)-6)
		ranges = append(ranges, [2]float64{mid - span*rng.Float64(), mid + span*rng.Float64() + 1e-9})
	}
	n := 64
	if testing.Short() {
		n = 8
	}
	src := make([]float32, 0, 1<<20)
	want, got := make([]byte, 2<<20), make([]byte, 2<<20)
	tested := 0
	for _, w := range wireTypes {
		l, _ := w.levels()
		for _, r := range append(ranges, [2]float64{0, l}) {
			q := mustNew(t, w, r[0], r[1])
			if q.f32 {
				tested++
			}
			src = tieNeighbours(src[:0], &q, n)
			for e := -149; e < 10; e++ { // tiny to large, both signs
				src = append(src, float32(math.Ldexp(1, e)), float32(-math.Ldexp(1, e)), float32(math.Ldexp(1.5, e)))
			}
			for range 4096 {
				src = append(src, float32(r[0]+(rng.Float64()*1.2-0.1)*(r[1]-r[0])), math.Float32frombits(rng.Uint32()))
			}
			for len(src) > 0 {
				m := min(len(src), 1<<20)
				compareFloat32(t, &q, src[:m], want, got)
				src = src[m:]
			}
		}
	}
	t.Logf("%d quantizers, %d of them in float32 arithmetic; kernels %v", len(wireTypes)*(len(ranges)+1), tested, kernels())
}

// TestFloat32Exhaustive checks every float32 bit pattern, NaNs and
// infinities included, for each wire type over [-1, 1] (exact float32
// constants) and over [-2.7, 3.1] (inexact ones): every kernel must give
// the portable kernel's codes and NaN count, with the float32 loops kept
// from widening (noWiden). It takes a minute or more, so
// it runs only with -quant.exhaustive:
//
//	GOEXPERIMENT=simd go test ./quant -run Exhaustive -v -quant.exhaustive
func TestFloat32Exhaustive(t *testing.T) {
	if !*exhaustive {
		t.Skip("skipped: run with -quant.exhaustive (a minute or more)")
	}
	if len(kernels()) == 0 {
		t.Skip("skipped: only the portable kernel here")
	}
	noWiden(t)
	for _, r := range [][2]float64{{-1, 1}, {-2.7, 3.1}} {
		for _, w := range wireTypes {
			q := mustNew(t, w, r[0], r[1])
			start := time.Now()
			bad := exhaust(&q)
			t.Logf("%v [%v, %v] (f32 %v): 2^32 patterns in %v", w, r[0], r[1], q.f32, time.Since(start).Round(time.Millisecond))
			if bad != "" {
				t.Error(bad)
			}
		}
	}
}

// exhaust compares the kernels over all 2^32 float32 patterns in chunks of
// 2^16, on every CPU, and describes the first difference found ("" if none).
func exhaust(q *Quantizer) string {
	const chunk = 1 << 16
	var next atomic.Uint32
	var first atomic.Pointer[string]
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			src := make([]float32, chunk)
			size := q.w.Size()
			want, got := make([]byte, chunk*size), make([]byte, chunk*size)
			for first.Load() == nil {
				hi := next.Add(1) - 1
				if hi >= 1<<16 {
					return
				}
				for i := range src {
					src[i] = math.Float32frombits(hi<<16 | uint32(i))
				}
				nw := encodePortable(q, want, src)
				for _, k := range kernels() {
					if n := q.encodeFloat32With(k, got, src); n != nw || !bytes.Equal(got, want) {
						i := 0
						for i < chunk-1 && bytes.Equal(got[i*size:(i+1)*size], want[i*size:(i+1)*size]) {
							i++
						}
						msg := fmt.Sprintf("%v [%v, %v]: %v gives code %d for %v (%#08x), portable %d (NaNs %d, %d)",
							q.w, q.min, q.max, k, decodeCode(q.w, got[i*size:]), src[i], math.Float32bits(src[i]), decodeCode(q.w, want[i*size:]), n, nw)
						first.CompareAndSwap(nil, &msg)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return ""
}
