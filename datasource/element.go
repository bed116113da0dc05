package datasource

import (
	"encoding/binary"
	"math"
)

// The raw bits of an element are the one form every reader of signal
// memory or of a datagram shares: unsigned integers and char8 zero-extended,
// signed integers sign-extended (two's complement in a uint64), float32 as
// its 32 bits and float64 as its 64 bits, so values compare bit-exact.

// Raw reads the element of type t at the start of b, in byte order o
// (binary.NativeEndian for signal memory), and returns its raw bits. It
// panics, like an index, if b is shorter than t.Size(); it does not
// allocate.
func (t Type) Raw(b []byte, o binary.ByteOrder) uint64 {
	var v uint64
	switch t.Size() {
	case 1:
		v = uint64(b[0])
	case 2:
		v = uint64(o.Uint16(b))
	case 4:
		v = uint64(o.Uint32(b))
	case 8:
		v = o.Uint64(b)
	}
	if t.Signed() {
		shift := 64 - 8*uint(t.Size())
		v = uint64(int64(v<<shift) >> shift)
	}
	return v
}

// Float64 returns the value of raw bits of type t as a float64.
func (t Type) Float64(raw uint64) float64 {
	switch t {
	case Int8, Int16, Int32, Int64:
		return float64(int64(raw))
	case Float32:
		return float64(math.Float32frombits(uint32(raw)))
	case Float64:
		return math.Float64frombits(raw)
	}
	return float64(raw)
}

// FromFloat64 converts v to raw bits of type t, Float64's inverse where v
// fits: integers round to nearest (halves away from zero) and saturate at
// the type's range, NaN gives 0; floats keep their bits (float32 rounds to
// nearest).
func (t Type) FromFloat64(v float64) uint64 {
	switch t {
	case Float32:
		return uint64(math.Float32bits(float32(v)))
	case Float64:
		return math.Float64bits(v)
	}
	if v != v {
		return 0
	}
	v = math.Round(v)
	switch t {
	case Uint8, Char8:
		return uint64(clamp(v, 0, math.MaxUint8))
	case Uint16:
		return uint64(clamp(v, 0, math.MaxUint16))
	case Uint32:
		return uint64(clamp(v, 0, math.MaxUint32))
	case Int8:
		return uint64(int64(clamp(v, math.MinInt8, math.MaxInt8)))
	case Int16:
		return uint64(int64(clamp(v, math.MinInt16, math.MaxInt16)))
	case Int32:
		return uint64(int64(clamp(v, math.MinInt32, math.MaxInt32)))
	case Uint64:
		switch {
		case v <= 0:
			return 0
		case v >= 1<<64:
			return math.MaxUint64
		}
		return uint64(v)
	case Int64:
		switch {
		case v <= math.MinInt64:
			return 1 << 63
		case v >= 1<<63:
			return math.MaxInt64
		}
		return uint64(int64(v))
	}
	return 0
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
