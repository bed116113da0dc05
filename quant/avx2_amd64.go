//go:build goexperiment.simd && amd64

package quant

import (
	"math/bits"
	"simd/archsimd"
)

// This file holds the AVX2 encoders, for CPUs without AVX-512 (AVX2 and
// FMA: x86-64-v3). They compute what the AVX-512 ones do with 256-bit
// vectors: float64 samples in float64 (sub, mul, no fused multiply-add,
// clamp, then the add of index's magic constant rounds to the nearest
// code), float32 samples in float32 where float32.go allows it, with the
// same check for ties and the same redo in float64. Clamping before
// rounding gives index's codes because 0 and L are integers.
//
// AVX2 cannot narrow 32-bit lanes to bytes in one instruction, so each
// block of 16 samples is assembled from its two vectors of code lanes by
// byte shuffles within 128-bit halves and one cross-half permute (pack).
// As in the AVX-512 kernels, the last block overlaps the previous one when
// the length is not a multiple of 16, and NaNs are counted in a second pass
// only if the loop saw one. There are no AVX2 decoders: the portable ones
// run.

// blk is the number of samples per iteration: two vectors of 8 float32 or
// four of 4 float64.
const blk = 16

// Byte shuffles gathering the low byte (pick8) or the two low bytes
// (pick16) of each 32-bit lane of the first and second vector into their
// places within each 128-bit half (-1 clears a byte); the dword permutes
// perm8 and perm16 then put the halves in order.
var (
	pick8 = [2][32]int8{
		{0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
		{-1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1},
	}
	pick16 = [2][32]int8{
		{0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1},
		{-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13},
	}
	perm8  = [8]uint32{0, 4, 1, 5, 2, 6, 3, 7}
	perm16 = [8]uint32{0, 1, 4, 5, 2, 3, 6, 7}
)

// shuffles returns the pack constants for codes of type C.
func shuffles[C code]() (p0, p1 archsimd.Int8x32, perm archsimd.Uint32x8) {
	if codeSize[C]() == 1 {
		return archsimd.LoadInt8x32(&pick8[0]), archsimd.LoadInt8x32(&pick8[1]), archsimd.LoadUint32x8(&perm8)
	}
	return archsimd.LoadInt8x32(&pick16[0]), archsimd.LoadInt8x32(&pick16[1]), archsimd.LoadUint32x8(&perm16)
}

// pack gathers the low byte or bytes of each lane of a, then of b, at the
// start of the result, in order.
func pack(a, b archsimd.Int32x8, p0, p1 archsimd.Int8x32, perm archsimd.Uint32x8) archsimd.Int32x8 {
	return a.AsInt8x32().PermuteOrZeroGrouped(p0).Or(b.AsInt8x32().PermuteOrZeroGrouped(p1)).AsInt32x8().Permute(perm)
}

// store writes the 16 packed codes of c to the codes at dst[16*i].
func store[C code](dst []byte, i int, c archsimd.Int32x8) {
	if codeSize[C]() == 1 {
		c.GetLo().AsUint8x16().Store((*[blk]byte)(dst[i:]))
	} else {
		c.AsUint8x32().Store((*[2 * blk]byte)(dst[2*i:]))
	}
}

// codes4 is index for 4 lanes, as int32 codes: t = clamp((v-min)*scale, 0,
// L), NaN to 0, then t+magic rounds t+lowest to the nearest integer, ties
// to even, and subtracting round (1.5*2^52) leaves it.
func codes4(v, min, scale, l, magic, round archsimd.Float64x4) archsimd.Int32x4 {
	var zero archsimd.Float64x4
	t := v.Sub(min).Mul(scale).Max(zero).Min(l).AsInt64x4().AndNot(v.IsNaN().ToInt64x4()).AsFloat64x4()
	return t.Add(magic).Sub(round).ConvertToInt32()
}

// codes8 is codes4 for two vectors.
func codes8(a, b, min, scale, l, magic, round archsimd.Float64x4) archsimd.Int32x8 {
	var c archsimd.Int32x8
	return c.SetLo(codes4(a, min, scale, l, magic, round)).SetHi(codes4(b, min, scale, l, magic, round))
}

// wide8 is codes8 of 8 float32 samples widened to float64.
func wide8(x archsimd.Float32x8, min, scale, l, magic, round archsimd.Float64x4) archsimd.Int32x8 {
	return codes8(x.GetLo().ConvertToFloat64(), x.GetHi().ConvertToFloat64(), min, scale, l, magic, round)
}

// consts64x4 broadcasts q's float64 constants for codes4.
func consts64x4(q *Quantizer) (min, scale, l, magic, round archsimd.Float64x4) {
	return archsimd.BroadcastFloat64x4(q.min), archsimd.BroadcastFloat64x4(q.scale),
		archsimd.BroadcastFloat64x4(q.levels), archsimd.BroadcastFloat64x4(q.magic),
		archsimd.BroadcastFloat64x4(roundMagic)
}

// anyLane reports whether a lane of v is not zero.
func anyLane(v archsimd.Int32x8) bool {
	var zero archsimd.Int32x8
	return v.Equal(zero).ToBits() != 0xff
}

func avx2EncodeFloat64(q *Quantizer, dst []byte, src []float64, nans *int) bool {
	return len(src) >= blk && bySize(q, dst, src, nans, avx2Float64[uint8], avx2Float64[uint16])
}

func avx2Float64[C code](q *Quantizer, dst []byte, src []float64) (nans int) {
	dst = dst[:len(src)*codeSize[C]()]
	min, scale, l, magic, round := consts64x4(q)
	p0, p1, perm := shuffles[C]()
	var nan archsimd.Int64x4 // lanes set where a NaN was seen
	last := len(src) - blk
	for i := 0; ; i += blk {
		if i > last {
			i = last
		}
		s := (*[blk]float64)(src[i:])
		v0 := archsimd.LoadFloat64x4((*[4]float64)(s[0:]))
		v1 := archsimd.LoadFloat64x4((*[4]float64)(s[4:]))
		v2 := archsimd.LoadFloat64x4((*[4]float64)(s[8:]))
		v3 := archsimd.LoadFloat64x4((*[4]float64)(s[12:]))
		nan = nan.Or(v0.IsNaN().ToInt64x4()).Or(v1.IsNaN().ToInt64x4()).Or(v2.IsNaN().ToInt64x4()).Or(v3.IsNaN().ToInt64x4())
		store[C](dst, i, pack(codes8(v0, v1, min, scale, l, magic, round), codes8(v2, v3, min, scale, l, magic, round), p0, p1, perm))
		if i == last {
			break
		}
	}
	if anyLane(nan.AsInt32x8()) {
		nans = countNaN4(src)
	}
	archsimd.ClearAVXUpperBits()
	return nans
}

func avx2EncodeFloat32(q *Quantizer, dst []byte, src []float32, nans *int) bool {
	if len(src) < blk {
		return false
	}
	if !q.f32 {
		return bySize(q, dst, src, nans, avx2Float32Wide[uint8], avx2Float32Wide[uint16])
	}
	return bySize(q, dst, src, nans, avx2Float32[uint8], avx2Float32[uint16])
}

// consts32x8 broadcasts q's float32 constants; edge2 is edge32 squared, the
// bound on (t-rne(t))^2 at or above which a lane is near a tie.
func consts32x8(q *Quantizer) (scale, bias, l, magic, edge2 archsimd.Float32x8) {
	return archsimd.BroadcastFloat32x8(q.scale32), archsimd.BroadcastFloat32x8(q.bias32),
		archsimd.BroadcastFloat32x8(q.levels32), archsimd.BroadcastFloat32x8(q.magic32),
		archsimd.BroadcastFloat32x8(q.edge32 * q.edge32)
}

// float8 computes 8 float32 samples in float32, as avx512Float32 does: the
// lanes of c hold the bits of rne(t+lowest)+1.5*2^23, whose low bytes are
// the codes; nan has the NaN lanes set; near reports a lane within the
// window of a tie, which the caller redoes in float64.
func float8(x, scale, bias, l, magic, edge2 archsimd.Float32x8) (c, nan archsimd.Int32x8, near bool) {
	var zero archsimd.Float32x8
	nan = x.IsNaN().ToInt32x8()
	t := x.MulAdd(scale, bias).Max(zero).Min(l).AsInt32x8().AndNot(nan).AsFloat32x8() // NaN to 0
	r := t.Add(magic)
	d := t.Sub(r.Sub(magic)) // t - rne(t), exact
	return r.AsInt32x8(), nan, d.Mul(d).GreaterEqual(edge2).ToBits() != 0
}

// avx2Float32 encodes float32 samples in float32 (see avx512Float32),
// redoing in float64 each vector of 8 with a lane near a tie (redo8).
func avx2Float32[C code](q *Quantizer, dst []byte, src []float32) (nans int) {
	dst = dst[:len(src)*codeSize[C]()]
	scale, bias, l, magic, edge2 := consts32x8(q)
	p0, p1, perm := shuffles[C]()
	var nan archsimd.Int32x8
	redone := 0
	last := len(src) - blk
	i := 0
	for {
		// The inner loop makes no call, so the compiler keeps the
		// constants in registers through it; with the redo's call in the
		// same loop, it spilled and reloaded them on every iteration.
		var c0, c1 archsimd.Int32x8
		var near0, near1 bool
		for ; ; i += blk {
			if i > last {
				i = last
			}
			s := (*[blk]float32)(src[i:])
			var n0, n1 archsimd.Int32x8
			c0, n0, near0 = float8(archsimd.LoadFloat32x8((*[8]float32)(s[0:])), scale, bias, l, magic, edge2)
			c1, n1, near1 = float8(archsimd.LoadFloat32x8((*[8]float32)(s[8:])), scale, bias, l, magic, edge2)
			nan = nan.Or(n0).Or(n1)
			if near0 || near1 {
				break
			}
			store[C](dst, i, pack(c0, c1, p0, p1, perm))
			if i == last {
				i = len(src)
				break
			}
		}
		if i == len(src) {
			break
		}
		if near0 {
			c0 = redo8(q, (*[8]float32)(src[i:]))
		}
		if near1 {
			c1 = redo8(q, (*[8]float32)(src[i+8:]))
		}
		store[C](dst, i, pack(c0, c1, p0, p1, perm))
		if redone++; i == last {
			break
		}
		if i += blk; i <= last && widenRest(redone, i/blk) {
			if avx2Float32Wide[C](q, dst[i*codeSize[C]():], src[i:]) > 0 {
				nan = nan.Or(archsimd.BroadcastInt32x8(-1))
			}
			break
		}
	}
	if anyLane(nan) {
		nans = countNaN8(src)
	}
	archsimd.ClearAVXUpperBits()
	return nans
}

// redo8 is wide8 of the 8 samples at s. It is rare, and not inlined: Go
// allocates 15 vector registers, too few for the float64 constants beside
// the float32 ones.
//
//go:noinline
func redo8(q *Quantizer, s *[8]float32) archsimd.Int32x8 {
	min, scale, l, magic, round := consts64x4(q)
	return wide8(archsimd.LoadFloat32x8(s), min, scale, l, magic, round)
}

// avx2Float32Wide encodes float32 samples widened to float64, for
// quantizers where float32 arithmetic is not used (q.f32 false).
func avx2Float32Wide[C code](q *Quantizer, dst []byte, src []float32) (nans int) {
	dst = dst[:len(src)*codeSize[C]()]
	min, scale, l, magic, round := consts64x4(q)
	p0, p1, perm := shuffles[C]()
	var nan archsimd.Int32x8
	last := len(src) - blk
	for i := 0; ; i += blk {
		if i > last {
			i = last
		}
		s := (*[blk]float32)(src[i:])
		x0 := archsimd.LoadFloat32x8((*[8]float32)(s[0:]))
		x1 := archsimd.LoadFloat32x8((*[8]float32)(s[8:]))
		nan = nan.Or(x0.IsNaN().ToInt32x8()).Or(x1.IsNaN().ToInt32x8())
		store[C](dst, i, pack(wide8(x0, min, scale, l, magic, round), wide8(x1, min, scale, l, magic, round), p0, p1, perm))
		if i == last {
			break
		}
	}
	if anyLane(nan) {
		nans = countNaN8(src)
	}
	archsimd.ClearAVXUpperBits()
	return nans
}

// countNaN4 returns the number of NaNs in src, len(src) >= 4, with AVX2.
func countNaN4(src []float64) int {
	n := 0
	last := len(src) - 4
	for i := 0; ; i += 4 {
		if i > last {
			return n + bits.OnesCount8(archsimd.LoadFloat64x4((*[4]float64)(src[last:])).IsNaN().ToBits()>>(i-last))
		}
		n += bits.OnesCount8(archsimd.LoadFloat64x4((*[4]float64)(src[i:])).IsNaN().ToBits())
	}
}

// countNaN8 is countNaN4 for float32 samples, len(src) >= 8.
func countNaN8(src []float32) int {
	n := 0
	last := len(src) - 8
	for i := 0; ; i += 8 {
		if i > last {
			return n + bits.OnesCount8(archsimd.LoadFloat32x8((*[8]float32)(src[last:])).IsNaN().ToBits()>>(i-last))
		}
		n += bits.OnesCount8(archsimd.LoadFloat32x8((*[8]float32)(src[i:])).IsNaN().ToBits())
	}
}
