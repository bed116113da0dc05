package datasource

import (
	"fmt"
	"slices"
)

// Type is the element type of a signal, shared by every producer, its wire
// codec and its client. The ten numeric types are the UDPStreamer wire type
// codes, so one converts to the byte of a CONFIG record with a plain cast;
// Char8 comes after them and has no UDPStreamer code. FlatUDP names types in
// its signals string with String's spelling.
type Type uint8

// The ten numeric signal types, in wire-code order, then Char8.
const (
	Uint8 Type = iota
	Int8
	Uint16
	Int16
	Uint32
	Int32
	Uint64
	Int64
	Float32
	Float64
	// Char8 is MARTe2's char8: one byte of text. A char8[N] signal holds
	// a string of up to N bytes, NUL-padded. FlatUDP
	// sends its N bytes as they lie in memory, as MARTe2's UDPSender does;
	// UDPStreamer (no type code for it) and RD100S (numeric fields)
	// refuse it.
	Char8
	numTypes
)

var typeNames = [numTypes]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64", "char8"}
var typeSizes = [numTypes]int{1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1}

// Size returns the size of one element in bytes, or 0 for an invalid Type.
func (t Type) Size() int {
	if t >= numTypes {
		return 0
	}
	return typeSizes[t]
}

// String returns the MARTe2 type name ("uint8" ... "float64", "char8").
func (t Type) String() string {
	if t >= numTypes {
		return fmt.Sprintf("Type(%d)", uint8(t))
	}
	return typeNames[t]
}

// Valid reports whether t is one of the eleven types.
func (t Type) Valid() bool { return t < numTypes }

// IsFloat reports whether t is float32 or float64, the only types that may
// be quantised.
func (t Type) IsFloat() bool { return t == Float32 || t == Float64 }

// Signed reports whether t is a signed integer type.
func (t Type) Signed() bool { return t == Int8 || t == Int16 || t == Int32 || t == Int64 }

// ParseType parses a MARTe2 type name ("uint8" ... "float64", "char8",
// lower case).
func ParseType(s string) (Type, error) {
	if i := slices.Index(typeNames[:], s); i >= 0 {
		return Type(i), nil
	}
	return 0, fmt.Errorf("unknown type %q (want one of uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64, char8)", s)
}

// TimeMode says how a client reconstructs per-sample timestamps of an array
// signal. The values are the UDPStreamer wire codes.
type TimeMode uint8

// The four time modes of the UDPStreamer datasource.
const (
	PacketTime  TimeMode = iota // every element has the DATA payload's hrtTimestamp; no time signal
	FullArray                   // the time signal has as many elements; t[k] = time[k]
	FirstSample                 // scalar time signal; t[k] = t[0] + k/SamplingRate
	LastSample                  // scalar time signal; t[k] = t[N-1] - (N-1-k)/SamplingRate
	numTimeModes
)

var timeModeNames = [numTimeModes]string{"PacketTime", "FullArray", "FirstSample", "LastSample"}

// String returns the MARTe2 name of the time mode.
func (m TimeMode) String() string {
	if m >= numTimeModes {
		return fmt.Sprintf("TimeMode(%d)", uint8(m))
	}
	return timeModeNames[m]
}
