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
