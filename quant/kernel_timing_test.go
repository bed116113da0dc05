package quant

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

const benchN = 1000

// benchInput returns benchN values spread over [-1.1, 1.1] (a few out of
// range, to exercise the clamp) in a fixed pseudo-random order.
func benchInput() ([]float64, []float32) {
	rng := rand.New(rand.NewPCG(5, 6))
	s64 := make([]float64, benchN)
	s32 := make([]float32, benchN)
	for i := range s64 {
		s64[i] = 2.2*rng.Float64() - 1.1
		s32[i] = float32(s64[i])
	}
	return s64, s32
}

// perOp is the number of kernel calls in one benchmark iteration.
const perOp = 100

// measure runs f perOp times per benchmark iteration and reports ns/elem,
// the median over the iterations of their time per sample (a 1000-sample
// call takes 0.2 to 2 µs, so most iterations run undisturbed and the
// median is the kernel's speed even on a loaded machine), and
// mean-ns/elem, the plain mean. bytes is the source bytes of one call.
func measure(b *testing.B, bytes int64, f func()) {
	b.ReportAllocs()
	b.SetBytes(bytes * perOp)
	times := make([]float64, 0, 1<<14)
	for b.Loop() {
		start := time.Now()
		for range perOp {
			f()
		}
		if len(times) < cap(times) {
			times = append(times, float64(time.Since(start).Nanoseconds())/(perOp*benchN))
		}
	}
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2], "ns/elem")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perOp*benchN), "mean-ns/elem")
}

// BenchmarkEncode measures the selected encode kernel (AVX-512 or AVX2 when
// built with GOEXPERIMENT=simd on a capable CPU) for every source/wire pair;
// SetBytes counts source bytes.
func BenchmarkEncode(b *testing.B) { benchEncode(b, selected) }

// BenchmarkEncodeAVX2 measures the AVX2 kernel, whatever the CPU's best.
func BenchmarkEncodeAVX2(b *testing.B) {
	if !kernelAVX2.supported() {
		b.Skip("skipped: no AVX2 kernel in this build or on this CPU")
	}
	benchEncode(b, kernelAVX2)
}

// BenchmarkEncodePortable measures the plain Go kernels whatever the build.
func BenchmarkEncodePortable(b *testing.B) { benchEncode(b, kernelPortable) }

func benchEncode(b *testing.B, k kernel) {
	s64, s32 := benchInput()
	for _, w := range wireTypes {
		q := mustNew(b, w, -1, 1)
		dst := make([]byte, benchN*w.Size())
		b.Run("f32-"+w.String(), func(b *testing.B) {
			measure(b, 4*benchN, func() { sinkNaNs += q.encodeFloat32With(k, dst, s32) })
		})
		b.Run("f64-"+w.String(), func(b *testing.B) {
			measure(b, 8*benchN, func() { sinkNaNs += q.encodeFloat64With(k, dst, s64) })
		})
	}
}

// BenchmarkBaseline is the floor to compare against: a bare Go conversion
// loop with no scaling, clamping, rounding or NaN handling.
func BenchmarkBaseline(b *testing.B) {
	s64, s32 := benchInput()
	for i := range s64 { // keep the bare conversions in range
		s64[i] = math.Abs(s64[i]) * 100
		s32[i] = float32(s64[i])
	}
	u8, i8 := make([]uint8, benchN), make([]int8, benchN)
	u16, i16 := make([]uint16, benchN), make([]int16, benchN)
	run := func(name string, bytes int64, f func()) {
		b.Run(name, func(b *testing.B) { measure(b, bytes, f) })
	}
	run("f32-uint8", 4*benchN, func() { convert(u8, s32) })
	run("f64-uint8", 8*benchN, func() { convert(u8, s64) })
	run("f32-int8", 4*benchN, func() { convert(i8, s32) })
	run("f64-int8", 8*benchN, func() { convert(i8, s64) })
	run("f32-uint16", 4*benchN, func() { convert(u16, s32) })
	run("f64-uint16", 8*benchN, func() { convert(u16, s64) })
	run("f32-int16", 4*benchN, func() { convert(i16, s32) })
	run("f64-int16", 8*benchN, func() { convert(i16, s64) })
}

// convert is the bare conversion loop of BenchmarkBaseline. Each
// instantiation is compiled for its own types (they differ in GC shape), as
// a hand-written loop would be.
func convert[D uint8 | int8 | uint16 | int16, S float32 | float64](dst []D, src []S) {
	for i := range src {
		dst[i] = D(src[i])
	}
}

// BenchmarkDecode measures the decode kernels (client side).
func BenchmarkDecode(b *testing.B) {
	s64, _ := benchInput()
	out64 := make([]float64, benchN)
	out32 := make([]float32, benchN)
	for _, w := range wireTypes {
		q := mustNew(b, w, -1, 1)
		src := make([]byte, benchN*w.Size())
		q.EncodeFloat64(src, s64)
		b.Run(w.String()+"-f64", func(b *testing.B) {
			measure(b, int64(len(src)), func() { q.DecodeFloat64(out64, src) })
		})
		b.Run(w.String()+"-f32", func(b *testing.B) {
			measure(b, int64(len(src)), func() { q.decodeFloat32(out32, src) })
		})
	}
}

// BenchmarkEncodeTies measures the float32 encoders on samples at ties
// between two codes: the vector kernels redo every vector in float64, their
// worst case.
func BenchmarkEncodeTies(b *testing.B) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, k := range append([]kernel{kernelPortable}, kernels()...) {
		for _, w := range wireTypes {
			q := mustNew(b, w, -1, 1)
			src := make([]float32, benchN)
			for i := range src {
				c := q.minCode() + rng.Int32N(q.maxCode()-q.minCode())
				src[i] = float32((q.Value(c) + q.Value(c+1)) / 2)
			}
			dst := make([]byte, benchN*w.Size())
			b.Run(k.String()+"/f32-"+w.String(), func(b *testing.B) {
				measure(b, 4*benchN, func() { sinkNaNs += q.encodeFloat32With(k, dst, src) })
			})
		}
	}
}
