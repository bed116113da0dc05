//go:build goexperiment.simd && amd64

package quant

import (
	"math/bits"
	"simd/archsimd"
)

// This file holds the AVX-512 kernels, built with GOEXPERIMENT=simd. The
// encoders do exactly what index does, lane by lane and in the same float64
// operations (sub, mul, add of the magic constant; no fused multiply-add),
// and replace out-of-range lanes by the same precomputed bit patterns; the
// decoders evaluate Value's formula in the same order. Their output is
// therefore bit-identical to the portable kernels for every input, NaN,
// infinities, denormals and ties included (TestSIMDMatchesPortable,
// TestSIMDDecodeMatchesPortable, FuzzSIMD). Samples past the last full
// vector of 16 go through the portable kernel.
//
// Only AVX-512 is used: without AVX-512BW, AVX2 has no 256-bit narrowing to
// bytes in archsimd, and the portable kernels are the fallback.

// useSIMD is true when the CPU has AVX-512 F, CD, BW, DQ and VL (archsimd's
// AVX512 bundle); otherwise the portable kernels run, so the vector
// instructions are never reached on a CPU without them.
var useSIMD = archsimd.X86.AVX512()

// SIMD reports whether the slice kernels use vector instructions.
func SIMD() bool { return useSIMD }

// vlen is the number of samples per vector iteration: two Float64x8.
const vlen = 16

// codes is index for 8 lanes, truncated to 32 bits. Its vector arguments
// are q's constants broadcast by the caller; they stay in registers
// because codes is inlined and nothing holds them in memory.
func codes(v, min, scale, l, magic archsimd.Float64x8, lo, hi archsimd.Int64x8) archsimd.Int32x8 {
	var zero archsimd.Float64x8
	t := v.Sub(min).Mul(scale)
	r := t.Add(magic).AsInt64x8()
	r = hi.Merge(r, t.Greater(l))         // hi where t > l
	r = r.Merge(lo, t.GreaterEqual(zero)) // lo where !(t >= 0), NaN included
	return r.TruncateToInt32()
}

func simdEncodeFloat64(q *Quantizer, dst []byte, src []float64, nans *int) bool {
	size := q.w.Size()
	if !useSIMD || len(src) < vlen || size == 0 {
		return false
	}
	dst = dst[:len(src)*size]
	min := archsimd.BroadcastFloat64x8(q.min)
	scale := archsimd.BroadcastFloat64x8(q.scale)
	l := archsimd.BroadcastFloat64x8(q.levels)
	magic := archsimd.BroadcastFloat64x8(q.magic)
	lo := archsimd.BroadcastInt64x8(int64(q.lo))
	hi := archsimd.BroadcastInt64x8(int64(q.hi))
	n := 0
	for len(src) >= vlen && len(dst) >= vlen*size {
		s := (*[vlen]float64)(src)
		a := archsimd.LoadFloat64x8((*[8]float64)(s[:8]))
		b := archsimd.LoadFloat64x8((*[8]float64)(s[8:]))
		n += bits.OnesCount16(uint16(a.IsNaN().ToBits()) | uint16(b.IsNaN().ToBits())<<8)
		var c archsimd.Int32x16
		c = c.SetLo(codes(a, min, scale, l, magic, lo, hi)).SetHi(codes(b, min, scale, l, magic, lo, hi))
		if size == 1 {
			c.TruncateToInt8().AsUint8x16().Store((*[vlen]byte)(dst))
		} else {
			c.TruncateToInt16().AsUint8x32().Store((*[2 * vlen]byte)(dst))
		}
		src, dst = src[vlen:], dst[vlen*size:]
	}
	archsimd.ClearAVXUpperBits()
	*nans = n + encodePortable(q, dst, src)
	return true
}

func simdEncodeFloat32(q *Quantizer, dst []byte, src []float32, nans *int) bool {
	size := q.w.Size()
	if !useSIMD || len(src) < vlen || size == 0 {
		return false
	}
	dst = dst[:len(src)*size]
	min := archsimd.BroadcastFloat64x8(q.min)
	scale := archsimd.BroadcastFloat64x8(q.scale)
	l := archsimd.BroadcastFloat64x8(q.levels)
	magic := archsimd.BroadcastFloat64x8(q.magic)
	lo := archsimd.BroadcastInt64x8(int64(q.lo))
	hi := archsimd.BroadcastInt64x8(int64(q.hi))
	n := 0
	for len(src) >= vlen && len(dst) >= vlen*size {
		x := archsimd.LoadFloat32x16((*[vlen]float32)(src))
		n += bits.OnesCount16(x.IsNaN().ToBits())
		var c archsimd.Int32x16
		c = c.SetLo(codes(x.GetLo().ConvertToFloat64(), min, scale, l, magic, lo, hi)).SetHi(codes(x.GetHi().ConvertToFloat64(), min, scale, l, magic, lo, hi))
		if size == 1 {
			c.TruncateToInt8().AsUint8x16().Store((*[vlen]byte)(dst))
		} else {
			c.TruncateToInt16().AsUint8x32().Store((*[2 * vlen]byte)(dst))
		}
		src, dst = src[vlen:], dst[vlen*size:]
	}
	archsimd.ClearAVXUpperBits()
	*nans = n + encodePortable(q, dst, src)
	return true
}

// loadCodes loads 16 codes of wire type w from b and returns code-lowest
// (0 to L) as int32 lanes.
func loadCodes(w WireType, b []byte) archsimd.Int32x16 {
	switch w {
	case Uint8:
		return archsimd.LoadUint8x16((*[16]byte)(b)).ExtendToUint32().AsInt32x16()
	case Int8:
		return archsimd.LoadUint8x16((*[16]byte)(b)).AsInt8x16().ExtendToInt32().Add(archsimd.BroadcastInt32x16(127))
	case Uint16:
		return archsimd.LoadUint8x32((*[32]byte)(b)).AsUint16x16().ExtendToUint32().AsInt32x16()
	default:
		return archsimd.LoadUint8x32((*[32]byte)(b)).AsInt16x16().ExtendToInt32().Add(archsimd.BroadcastInt32x16(32767))
	}
}

// values is the decode formula of Value for 8 lanes: min + c/l*span, in
// that order of operations and without fusing.
func values(c archsimd.Int32x8, min, l, span archsimd.Float64x8) archsimd.Float64x8 {
	return c.ConvertToFloat64().Div(l).Mul(span).Add(min)
}

func simdDecodeFloat64(q *Quantizer, dst []float64, src []byte) bool {
	size := q.w.Size()
	if !useSIMD || len(dst) < vlen || size == 0 {
		return false
	}
	src = src[:len(dst)*size]
	min := archsimd.BroadcastFloat64x8(q.min)
	l := archsimd.BroadcastFloat64x8(q.levels)
	span := archsimd.BroadcastFloat64x8(q.span)
	for len(dst) >= vlen && len(src) >= vlen*size {
		c := loadCodes(q.w, src)
		d := (*[vlen]float64)(dst)
		values(c.GetLo(), min, l, span).Store((*[8]float64)(d[:8]))
		values(c.GetHi(), min, l, span).Store((*[8]float64)(d[8:]))
		src, dst = src[vlen*size:], dst[vlen:]
	}
	archsimd.ClearAVXUpperBits()
	decode(q, dst, src)
	return true
}

func simdDecodeFloat32(q *Quantizer, dst []float32, src []byte) bool {
	size := q.w.Size()
	if !useSIMD || len(dst) < vlen || size == 0 {
		return false
	}
	src = src[:len(dst)*size]
	min := archsimd.BroadcastFloat64x8(q.min)
	l := archsimd.BroadcastFloat64x8(q.levels)
	span := archsimd.BroadcastFloat64x8(q.span)
	for len(dst) >= vlen && len(src) >= vlen*size {
		c := loadCodes(q.w, src)
		var f archsimd.Float32x16
		f = f.SetLo(values(c.GetLo(), min, l, span).ConvertToFloat32())
		f = f.SetHi(values(c.GetHi(), min, l, span).ConvertToFloat32())
		f.Store((*[vlen]float32)(dst))
		src, dst = src[vlen*size:], dst[vlen:]
	}
	archsimd.ClearAVXUpperBits()
	decode(q, dst, src)
	return true
}
