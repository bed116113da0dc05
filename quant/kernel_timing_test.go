package quant

import (
	"math"
	"math/rand/v2"
	"testing"
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

// benchElems runs f as the sub-benchmark name over benchN elements of
// bytes bytes in all, and reports ns per element.
func benchElems(b *testing.B, name string, bytes int, f func()) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(bytes))
		for b.Loop() {
			f()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/elem")
	})
}

// BenchmarkEncode measures the selected encode kernel (SIMD when built with
// GOEXPERIMENT=simd on a capable CPU) for every source/wire pair; SetBytes
// counts source bytes.
func BenchmarkEncode(b *testing.B) {
	s64, s32 := benchInput()
	for _, w := range wireTypes {
		q := mustNew(b, w, -1, 1)
		dst := make([]byte, benchN*w.Size())
		benchElems(b, "f32-"+w.String(), 4*benchN, func() { sinkNaNs += q.EncodeFloat32(dst, s32) })
		benchElems(b, "f64-"+w.String(), 8*benchN, func() { sinkNaNs += q.EncodeFloat64(dst, s64) })
	}
}

// BenchmarkEncodePortable measures the plain Go kernels whatever the build.
func BenchmarkEncodePortable(b *testing.B) {
	s64, s32 := benchInput()
	for _, w := range wireTypes {
		q := mustNew(b, w, -1, 1)
		dst := make([]byte, benchN*w.Size())
		benchElems(b, "f32-"+w.String(), 4*benchN, func() { sinkNaNs += encodePortable(&q, dst, s32) })
		benchElems(b, "f64-"+w.String(), 8*benchN, func() { sinkNaNs += encodePortable(&q, dst, s64) })
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
	benchElems(b, "f32-uint8", 4*benchN, func() { convert(u8, s32) })
	benchElems(b, "f64-uint8", 8*benchN, func() { convert(u8, s64) })
	benchElems(b, "f32-int8", 4*benchN, func() { convert(i8, s32) })
	benchElems(b, "f64-int8", 8*benchN, func() { convert(i8, s64) })
	benchElems(b, "f32-uint16", 4*benchN, func() { convert(u16, s32) })
	benchElems(b, "f64-uint16", 8*benchN, func() { convert(u16, s64) })
	benchElems(b, "f32-int16", 4*benchN, func() { convert(i16, s32) })
	benchElems(b, "f64-int16", 8*benchN, func() { convert(i16, s64) })
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
		benchElems(b, w.String()+"-f64", len(src), func() { q.DecodeFloat64(out64, src) })
		benchElems(b, w.String()+"-f32", len(src), func() { q.DecodeFloat32(out32, src) })
	}
}
