package quant

import (
	"errors"
	"fmt"
	"math"
)

// WireType is a quantisation type code of the protocol's CONFIG message.
type WireType uint8

// Wire type codes, as carried on the wire.
const (
	None   WireType = iota // no quantisation: raw source type
	Uint8                  // [RangeMin, RangeMax] -> [0, 255]
	Int8                   // [RangeMin, RangeMax] -> [-127, 127]
	Uint16                 // [RangeMin, RangeMax] -> [0, 65535]
	Int16                  // [RangeMin, RangeMax] -> [-32767, 32767]
)

// Valid reports whether w is one of the five codes.
func (w WireType) Valid() bool { return w <= Int16 }

// Size returns the number of bytes per element on the wire, 0 for None and
// for unknown codes.
func (w WireType) Size() int {
	switch w {
	case Uint8, Int8:
		return 1
	case Uint16, Int16:
		return 2
	}
	return 0
}

// String returns the configuration spelling: "none", "uint8", "int8",
// "uint16" or "int16" ("WireType(n)" for unknown codes).
func (w WireType) String() string {
	if !w.Valid() {
		return fmt.Sprintf("WireType(%d)", uint8(w))
	}
	return wireTypeNames[w]
}

var wireTypeNames = [...]string{None: "none", Uint8: "uint8", Int8: "int8", Uint16: "uint16", Int16: "int16"}

// levels returns L, the highest code minus the lowest, and the lowest code.
func (w WireType) levels() (l float64, lowest int32) {
	switch w {
	case Uint8:
		return 255, 0
	case Int8:
		return 254, -127
	case Uint16:
		return 65535, 0
	case Int16:
		return 65534, -32767
	}
	return 0, 0
}

// Quantizer converts between float samples and the wire codes of one wire
// type over one range. The zero value is not usable; build one with [New],
// once per signal. A Quantizer is read-only after New, so copies and
// concurrent use from any number of goroutines are safe. Its slice kernels
// ([Quantizer.EncodeFloat32], [Quantizer.EncodeFloat64] and
// [Quantizer.DecodeFloat64]) never allocate and
// write into caller-owned buffers.
//
// Encoding (docs/udpstreamer.md, Quantisation): with L the number of steps
// (255, 254, 65535 or 65534) and t = (v-RangeMin) * (L/(RangeMax-RangeMin))
// computed in float64, t is clamped to [0, L] (-Inf to 0, +Inf to L, NaN to
// 0, so NaN encodes as the code of RangeMin and is counted), offset by the
// lowest code (0 for unsigned, -127 or -32767 for signed; -128 and -32768
// never appear) and rounded to the nearest code, ties to the even code.
// Every kernel gives these codes for every input, float32 samples
// included, whatever arithmetic it uses (see the package documentation).
//
// Decoding uses the protocol's formula, RangeMin + (code-lowest)/L*span,
// evaluated in float64 (then rounded to float32 for DecodeFloat32).
type Quantizer struct {
	w      WireType
	lowest int32   // code of RangeMin: 0, -127 or -32767
	min    float64 // RangeMin
	max    float64 // RangeMax
	span   float64 // RangeMax - RangeMin, finite and > 0
	levels float64 // L: 255, 254, 65535 or 65534
	scale  float64 // L / span, finite and > 0
	magic  float64 // 1.5*2^52 + lowest, see index
	lo, hi uint64  // bits of magic and of magic+L: codes of RangeMin and RangeMax

	// float32 arithmetic for float32 samples in the vector kernels, when
	// f32 is set (see initFloat32).
	f32                                        bool
	scale32, bias32, levels32, magic32, edge32 float32
}

// Errors returned by New, for errors.Is.
var (
	errWireType = errors.New("quant: wire type must be uint8, int8, uint16 or int16")
	errRange    = errors.New("quant: invalid range")
)

// New returns a Quantizer mapping [rangeMin, rangeMax] onto the codes of w.
// It rejects None and unknown wire types, NaN or infinite ends, rangeMin >=
// rangeMax, and ranges whose span or code scale overflow float64.
func New(w WireType, rangeMin, rangeMax float64) (Quantizer, error) {
	l, lowest := w.levels()
	if l == 0 {
		return Quantizer{}, fmt.Errorf("%w: got %v", errWireType, w)
	}
	if math.IsNaN(rangeMin) || math.IsInf(rangeMin, 0) || math.IsNaN(rangeMax) || math.IsInf(rangeMax, 0) {
		return Quantizer{}, fmt.Errorf("%w: RangeMin %v and RangeMax %v must be finite", errRange, rangeMin, rangeMax)
	}
	if !(rangeMin < rangeMax) {
		return Quantizer{}, fmt.Errorf("%w: RangeMin %v must be less than RangeMax %v", errRange, rangeMin, rangeMax)
	}
	span := rangeMax - rangeMin
	if math.IsInf(span, 0) {
		return Quantizer{}, fmt.Errorf("%w: RangeMax - RangeMin overflows float64 (RangeMin %v, RangeMax %v)", errRange, rangeMin, rangeMax)
	}
	scale := l / span
	if math.IsInf(scale, 0) {
		return Quantizer{}, fmt.Errorf("%w: span %v too small for %v", errRange, span, w)
	}
	q := Quantizer{
		w: w, lowest: lowest, min: rangeMin, max: rangeMax, span: span, levels: l, scale: scale,
		magic: roundMagic + float64(lowest),
		lo:    math.Float64bits(roundMagic + float64(lowest)),
		hi:    math.Float64bits(roundMagic + float64(lowest) + l),
	}
	q.initFloat32()
	return q, nil
}

// WireType returns the wire type q encodes to.
func (q *Quantizer) WireType() WireType { return q.w }

// Step returns the physical size of one code step, span/L.
func (q *Quantizer) Step() float64 { return q.span / q.levels }

// MinCode and MaxCode return the codes of RangeMin and RangeMax.
func (q *Quantizer) minCode() int32 { return q.lowest }

// MaxCode returns the code of RangeMax.
func (q *Quantizer) maxCode() int32 { return q.lowest + int32(q.levels) }

// roundMagic is 1.5*2^52, see index.
const roundMagic = 0x1.8p52

// Code returns the wire code of v; it is the scalar reference of the slice
// kernels and gives the same code. NaN gives the code of RangeMin.
func (q *Quantizer) Code(v float64) int32 {
	var nans int
	return int32(index(v, q.min, q.scale, q.levels, q.magic, q.lo, q.hi, &nans))
}

// Value returns the physical value of a code, by the protocol's
// dequantisation formula. Codes outside [MinCode, MaxCode] extrapolate.
func (q *Quantizer) Value(code int32) float64 {
	return q.min + float64(float64(code-q.lowest)/q.levels*q.span) // no FMA, as in decode
}
