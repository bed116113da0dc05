package quant

import "math"

// This file decides, once per Quantizer, whether the vector kernels may
// compute float32 samples in float32 arithmetic, and derives the constants
// they need (the package documentation gives the overview).
//
// The codes are defined by index's float64 arithmetic: t64 = (v-min)*scale
// rounded twice, code = rne(clamp(t64, 0, L) + lowest), rne rounding to
// nearest with ties to even (clamping before or after rounding gives the
// same code because 0 and L are integers). The float32 kernels compute
// instead
//
//	t32 = fl32(v*scale32 + bias32)     one fused multiply-add, one rounding
//	code = rne(clamp(t32, 0, L) + lowest)
//
// with scale32 = fl32(scale) and bias32 = fl32(-min*scale). The codes can
// differ only where t64 and t32 fall on different sides of a tie c+0.5
// (lowest is an integer, so the ties of t and of t+lowest are the same
// points). float32Bound bounds |t64 - t32| by w for every sample whose code
// the bound must decide, so each lane where the codes may differ has
// |t32 - rne(t32)| >= 0.5 - w: the kernels redo the vectors with such a
// lane in float64, and every other lane provably has the float64 code
// (the cases are argued in float32Bound). Where w exceeds maxFloat32Window
// the float32 path would redo too many vectors to pay, or the constants
// themselves are off by steps (bias32 of [1e6, 1e6+1] for uint16 is off by
// up to 2048), and it is not used (q.f32 false): the kernels widen float32
// samples to float64, as the portable kernel does.

// widen lets the float32 loops widen the rest of a slice when they redo
// many vectors (widenRest). Tests that must see every lane go through the
// float32 path or its redo turn it off.
var widen = true

// maxFloat32Window is the largest w for which the float32 kernels are used:
// a 16-lane vector of samples spread over the range is then redone with
// probability at most about 1-(1-2/128)^16, 22 %.
const maxFloat32Window = 1.0 / 128

// initFloat32 sets q's float32 constants and q.f32.
func (q *Quantizer) initFloat32() {
	s32 := float32(q.scale)
	b := -q.min * q.scale
	b32 := float32(b)
	if !isNormal32(s32) || math.IsInf(float64(b32), 0) {
		return
	}
	w := float32Bound(q.levels, q.scale, b, s32, b32)
	if !(w <= maxFloat32Window) {
		return
	}
	edge := float32(0.5 - w)
	if float64(edge) > 0.5-w { // round the edge down: catch more lanes, never fewer
		edge = math.Nextafter32(edge, 0)
	}
	q.f32 = true
	q.scale32, q.bias32, q.levels32, q.edge32 = s32, b32, float32(q.levels), edge
	q.magic32 = float32(roundMagic32 + float64(q.lowest))
}

// roundMagic32 is 1.5*2^23, index's magic for float32: t+roundMagic32 for t
// in [0, 65535] stays in [2^23, 2^24), where float32 steps by exactly 1.
const roundMagic32 = 0x1.8p23

// float32Bound returns w, a bound on |t64 - t32| over every sample whose
// code the bound must decide, for levels L, the float64 scale s and bias
// b = -min*s (rounded to float64), and their float32 roundings s32, b32.
//
// Let t = (v-min)*s exactly. Only samples with t in [-1, L+0.5] need the
// bound: if t > L+0.5, t64 > L+0.5-tiny, so the float64 code is L, and t32
// >= t - e32(L+1) > L-0.5 (e32 grows far slower than t), so the float32
// code is L too; t < -1 is the same at the other end; NaN encodes as the
// code of RangeMin on both paths and ±Inf clamp alike. For the others:
//
//   - t64 = t(1+d1)(1+d2) with |d1|, |d2| <= 2^-53, so |t64 - t| <=
//     (L+1)*2^-52 (plus a margin).
//   - v*s32 + b32 = t + v*(s32-s) + (b32-b) + (b - (-min*s)), and
//     |v| <= (L+1+|b|)/s, so its distance from t is at most
//     vmax*|s32-s| + |b32-b| + |b|*2^-53 (s32-s and b32-b are exact in
//     float64, by Sterbenz's lemma).
//   - the fused multiply-add rounds once, by at most half a float32 ulp of
//     its result, whose magnitude is below L+0.75 (< 256 or < 65536).
//
// w is their sum, scaled up by 2^-20 for the rounding of this computation.
func float32Bound(levels, s, b float64, s32, b32 float32) float64 {
	e64 := (levels + 1) * 0x1p-52
	vmax := (levels + 1 + math.Abs(b)) / s * (1 + 0x1p-40)
	eConst := vmax*math.Abs(float64(s32)-s) + math.Abs(float64(b32)-b) + math.Abs(b)*0x1p-53
	_, exp := math.Frexp(levels + 0.75) // levels+0.75 = f * 2^exp, f in [0.5, 1)
	eRound := math.Ldexp(1, exp-1-24)   // half an ulp in [2^(exp-1), 2^exp)
	return (e64 + eConst + eRound) * (1 + 0x1p-20)
}

// isNormal32 reports whether f is a finite, normal, non-zero float32.
func isNormal32(f float32) bool {
	a := math.Abs(float64(f))
	return a >= 0x1p-126 && a <= math.MaxFloat32
}
