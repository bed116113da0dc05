//go:build goexperiment.simd && amd64

package quant

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// This file holds the AVX-512 kernels. The float64 encoders do exactly
// what index does, lane by lane and in the same float64 operations (sub,
// mul, add of the magic constant; no fused multiply-add), and replace
// out-of-range lanes by the same precomputed bit patterns; the float32
// encoder computes in float32 where float32.go proves that gives the same
// codes and redoes the other vectors in float64; the decoders evaluate
// Value's formula in the same order. Their output is therefore
// bit-identical to the portable kernels for every input, NaN, infinities,
// denormals and ties included (TestSIMDMatchesPortable, TestFloat32Sampled,
// TestFloat32Exhaustive, FuzzSIMD).
//
// The encoders take 16 samples per iteration. When the length is not a
// multiple of 16 the last iteration encodes the last 16 samples again,
// overlapping the previous one (the codes are the same). The loops only
// note whether they saw a NaN, and count them in a second pass if so
// (countNaN32, countNaN64): counting costs two vector instructions per
// iteration, and a call in the loop would make the compiler spill its
// constants.

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

// wide16 is codes for 16 float32 samples widened to float64.
func wide16(x archsimd.Float32x16, min, scale, l, magic archsimd.Float64x8, lo, hi archsimd.Int64x8) archsimd.Int32x16 {
	var c archsimd.Int32x16
	return c.SetLo(codes(x.GetLo().ConvertToFloat64(), min, scale, l, magic, lo, hi)).SetHi(codes(x.GetHi().ConvertToFloat64(), min, scale, l, magic, lo, hi))
}

// consts64x8 broadcasts q's float64 constants for codes.
func consts64x8(q *Quantizer) (min, scale, l, magic archsimd.Float64x8, lo, hi archsimd.Int64x8) {
	return archsimd.BroadcastFloat64x8(q.min), archsimd.BroadcastFloat64x8(q.scale),
		archsimd.BroadcastFloat64x8(q.levels), archsimd.BroadcastFloat64x8(q.magic),
		archsimd.BroadcastInt64x8(int64(q.lo)), archsimd.BroadcastInt64x8(int64(q.hi))
}

// store16 writes the low byte or bytes (as C is uint8 or uint16) of each
// lane of c to the 16 codes at dst[16*i].
func store16[C code](dst []byte, i int, c archsimd.Int32x16) {
	if codeSize[C]() == 1 {
		c.TruncateToInt8().AsUint8x16().Store((*[vlen]byte)(dst[i:]))
	} else {
		c.TruncateToInt16().AsUint8x32().Store((*[2 * vlen]byte)(dst[2*i:]))
	}
}

func avx512EncodeFloat64(q *Quantizer, dst []byte, src []float64, nans *int) bool {
	return len(src) >= vlen && bySize(q, dst, src, nans, avx512Float64[uint8], avx512Float64[uint16])
}

func avx512Float64[C code](q *Quantizer, dst []byte, src []float64) (nans int) {
	dst = dst[:len(src)*codeSize[C]()]
	min, scale, l, magic, lo, hi := consts64x8(q)
	var nan uint8 // any NaN seen
	last := len(src) - vlen
	for i := 0; ; i += vlen {
		if i > last {
			i = last
		}
		s := (*[vlen]float64)(src[i:])
		a := archsimd.LoadFloat64x8((*[8]float64)(s[:8]))
		b := archsimd.LoadFloat64x8((*[8]float64)(s[8:]))
		nan |= a.IsNaN().ToBits() | b.IsNaN().ToBits()
		var c archsimd.Int32x16
		c = c.SetLo(codes(a, min, scale, l, magic, lo, hi)).SetHi(codes(b, min, scale, l, magic, lo, hi))
		store16[C](dst, i, c)
		if i == last {
			break
		}
	}
	if nan != 0 {
		nans = countNaN64(src)
	}
	archsimd.ClearAVXUpperBits()
	return nans
}

// countNaN64 returns the number of NaNs in src, len(src) >= vlen. The
// encoders only note whether they saw one, which costs less than counting
// in the common case of none, and call it (or countNaN32) if they did.
func countNaN64(src []float64) int {
	n := 0
	last := len(src) - 8
	for i := 0; ; i += 8 {
		if i > last {
			return n + bits.OnesCount8(archsimd.LoadFloat64x8((*[8]float64)(src[last:])).IsNaN().ToBits()>>(i-last))
		}
		n += bits.OnesCount8(archsimd.LoadFloat64x8((*[8]float64)(src[i:])).IsNaN().ToBits())
	}
}

// countNaN32 is countNaN64 for float32 samples.
func countNaN32(src []float32) int {
	n := 0
	last := len(src) - vlen
	for i := 0; ; i += vlen {
		if i > last {
			return n + bits.OnesCount16(archsimd.LoadFloat32x16((*[vlen]float32)(src[last:])).IsNaN().ToBits()>>(i-last))
		}
		n += bits.OnesCount16(archsimd.LoadFloat32x16((*[vlen]float32)(src[i:])).IsNaN().ToBits())
	}
}

func avx512EncodeFloat32(q *Quantizer, dst []byte, src []float32, nans *int) bool {
	if len(src) < vlen {
		return false
	}
	if !q.f32 {
		return bySize(q, dst, src, nans, avx512Float32Wide[uint8], avx512Float32Wide[uint16])
	}
	return bySize(q, dst, src, nans, avx512Float32[uint8], avx512Float32[uint16])
}

// avx512Float32Wide encodes float32 samples widened to float64, for
// quantizers where float32 arithmetic is not used (q.f32 false).
func avx512Float32Wide[C code](q *Quantizer, dst []byte, src []float32) (nans int) {
	dst = dst[:len(src)*codeSize[C]()]
	min, scale, l, magic, lo, hi := consts64x8(q)
	var nan uint16 // any NaN seen
	last := len(src) - vlen
	for i := 0; ; i += vlen {
		if i > last {
			i = last
		}
		x := archsimd.LoadFloat32x16((*[vlen]float32)(src[i:]))
		nan |= x.IsNaN().ToBits()
		store16[C](dst, i, wide16(x, min, scale, l, magic, lo, hi))
		if i == last {
			break
		}
	}
	if nan != 0 {
		nans = countNaN32(src)
	}
	archsimd.ClearAVXUpperBits()
	return nans
}

// avx512Float32 computes float32 samples in float32 (see float32.go): t =
// clamp(v*scale32+bias32, 0, L), NaN to 0, then the add of magic32 rounds
// t+lowest to the nearest integer, ties to even, into the low bits. A
// vector with a lane within q's window of a tie, (t-rne(t))^2 >= edge32^2,
// is encoded from the float64 widening instead (wideRedo).
func avx512Float32[C code](q *Quantizer, dst []byte, src []float32) (nans int) {
	dst = dst[:len(src)*codeSize[C]()]
	scale := archsimd.BroadcastFloat32x16(q.scale32)
	bias := archsimd.BroadcastFloat32x16(q.bias32)
	l := archsimd.BroadcastFloat32x16(q.levels32)
	magic := archsimd.BroadcastFloat32x16(q.magic32)
	edge2 := archsimd.BroadcastFloat32x16(q.edge32 * q.edge32)
	var zero archsimd.Float32x16
	var nan uint16
	redone := 0
	last := len(src) - vlen
	i := 0
	for {
		// The inner loop makes no call, so the compiler keeps the
		// constants in registers through it (see avx2Float32).
		var x archsimd.Float32x16
		for ; ; i += vlen {
			if i > last {
				i = last
			}
			x = archsimd.LoadFloat32x16((*[vlen]float32)(src[i:]))
			isNaN := x.IsNaN()
			nan |= isNaN.ToBits()
			t := zero.Merge(x.MulAdd(scale, bias).Max(zero).Min(l), isNaN) // NaN to 0
			d := t.RoundToEvenScaledResidue(0)                             // t - rne(t), exact; that of t+lowest too
			if d.Mul(d).GreaterEqual(edge2).ToBits() != 0 {
				break
			}
			store16[C](dst, i, t.Add(magic).AsInt32x16())
			if i == last {
				i = len(src)
				break
			}
		}
		if i == len(src) {
			break
		}
		store16[C](dst, i, wideRedo(q, x))
		if redone++; i == last {
			break
		}
		if i += vlen; i <= last && widenRest(redone, i/vlen) {
			if avx512Float32Wide[C](q, dst[i*codeSize[C]():], src[i:]) > 0 {
				nan = 1
			}
			break
		}
	}
	if nan != 0 {
		nans = countNaN32(src)
	}
	archsimd.ClearAVXUpperBits()
	return nans
}

// wideRedo is wide16 with q's float64 constants broadcast on the spot. It
// is rare, and not inlined: Go allocates 15 vector registers, too few for
// the float64 constants beside the float32 ones.
//
//go:noinline
func wideRedo(q *Quantizer, x archsimd.Float32x16) archsimd.Int32x16 {
	min, scale, l, magic, lo, hi := consts64x8(q)
	return wide16(x, min, scale, l, magic, lo, hi)
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

func avx512DecodeFloat64(q *Quantizer, dst []float64, src []byte) bool {
	return avx512Decode(q, dst, src)
}

func avx512DecodeFloat32(q *Quantizer, dst []float32, src []byte) bool {
	return avx512Decode(q, dst, src)
}

// avx512Decode decodes 16 codes at a time, in float64 (values), and
// stores them as they are into a float64 dst or rounded into a float32
// one; the rest goes through the portable decode. It returns false when
// the vector loop does not apply: fewer than vlen values, or a zero
// Quantizer. The branch on the element size is a constant of each
// instantiation, so each has one store and no test.
func avx512Decode[F float](q *Quantizer, dst []F, src []byte) bool {
	size := q.w.Size()
	if len(dst) < vlen || size == 0 {
		return false
	}
	src = src[:len(dst)*size]
	min := archsimd.BroadcastFloat64x8(q.min)
	l := archsimd.BroadcastFloat64x8(q.levels)
	span := archsimd.BroadcastFloat64x8(q.span)
	for len(dst) >= vlen && len(src) >= vlen*size {
		c := loadCodes(q.w, src)
		lo, hi := values(c.GetLo(), min, l, span), values(c.GetHi(), min, l, span)
		d := unsafe.Pointer((*[vlen]F)(dst))
		if unsafe.Sizeof(dst[0]) == 8 {
			lo.Store((*[8]float64)(d))
			hi.Store((*[8]float64)(unsafe.Add(d, 8*8)))
		} else {
			var f archsimd.Float32x16
			f.SetLo(lo.ConvertToFloat32()).SetHi(hi.ConvertToFloat32()).Store((*[vlen]float32)(d))
		}
		src, dst = src[vlen*size:], dst[vlen:]
	}
	archsimd.ClearAVXUpperBits()
	decode(q, dst, src)
	return true
}
