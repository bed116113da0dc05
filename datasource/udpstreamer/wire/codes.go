package wire

import (
	"errors"
	"strconv"
)

// TypeCode is a signal's element type in CONFIG.
type TypeCode uint8

// Type codes.
const (
	Uint8   TypeCode = 0
	Int8    TypeCode = 1
	Uint16  TypeCode = 2
	Int16   TypeCode = 3
	Uint32  TypeCode = 4
	Int32   TypeCode = 5
	Uint64  TypeCode = 6
	Int64   TypeCode = 7
	Float32 TypeCode = 8
	Float64 TypeCode = 9
)

var typeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"}
var typeSizes = [...]uint8{1, 1, 2, 2, 4, 4, 8, 8, 4, 8}

// Valid reports whether t is a defined type code.
func (t TypeCode) Valid() bool { return int(t) < len(typeNames) }

// Size is the size in bytes of one element, 0 for an invalid code.
func (t TypeCode) Size() int {
	if !t.Valid() {
		return 0
	}
	return int(typeSizes[t])
}

// IsFloat reports whether t is float32 or float64, the only types that may be quantised.
func (t TypeCode) IsFloat() bool { return t == Float32 || t == Float64 }

func (t TypeCode) String() string {
	if !t.Valid() {
		return "invalid"
	}
	return typeNames[t]
}

// ParseTypeCode returns the type code named s ("uint8" ... "float64").
func ParseTypeCode(s string) (TypeCode, error) {
	for i, n := range typeNames {
		if n == s {
			return TypeCode(i), nil
		}
	}
	return 0, errors.New("udpstreamer/wire: unknown type " + strconv.Quote(s))
}

// QuantCode is a signal's quantisation type in CONFIG: the integer type a float
// signal is linearly mapped to on the wire.
type QuantCode uint8

// Quantisation codes.
const (
	QuantNone   QuantCode = 0
	QuantUint8  QuantCode = 1 // [RangeMin, RangeMax] -> [0, 255]
	QuantInt8   QuantCode = 2 // [RangeMin, RangeMax] -> [-127, 127]
	QuantUint16 QuantCode = 3 // [RangeMin, RangeMax] -> [0, 65535]
	QuantInt16  QuantCode = 4 // [RangeMin, RangeMax] -> [-32767, 32767]
)

var quantNames = [...]string{"none", "uint8", "int8", "uint16", "int16"}
var quantWire = [...]TypeCode{0, Uint8, Int8, Uint16, Int16}

// Valid reports whether q is a defined quantisation code.
func (q QuantCode) Valid() bool { return int(q) < len(quantNames) }

// WireType is the type of one element on the wire for a signal of type raw
// quantised with q: raw itself when q is QuantNone.
func (q QuantCode) WireType(raw TypeCode) TypeCode {
	if q == QuantNone || !q.Valid() {
		return raw
	}
	return quantWire[q]
}

// WireSize is the size in bytes of one element on the wire, 0 for invalid codes.
func (q QuantCode) WireSize(raw TypeCode) int {
	if !q.Valid() {
		return 0
	}
	return q.WireType(raw).Size()
}

func (q QuantCode) String() string {
	if !q.Valid() {
		return "invalid"
	}
	return quantNames[q]
}

// ParseQuantCode returns the quantisation code named s ("none", "uint8", "int8",
// "uint16", "int16").
func ParseQuantCode(s string) (QuantCode, error) {
	for i, n := range quantNames {
		if n == s {
			return QuantCode(i), nil
		}
	}
	return 0, errors.New("udpstreamer/wire: unknown quantisation type " + strconv.Quote(s))
}

// TimeMode says how a signal's per-element times are derived.
type TimeMode uint8

// Time modes.
const (
	PacketTime  TimeMode = 0 // the DATA payload's hrtTimestamp; no time signal
	FullArray   TimeMode = 1 // time signal has as many elements; t[k] = time[k]
	FirstSample TimeMode = 2 // scalar time signal; t[k] = t[0] + k/SamplingRate
	LastSample  TimeMode = 3 // scalar time signal; t[k] = t[N-1] - (N-1-k)/SamplingRate
)

var timeModeNames = [...]string{"PacketTime", "FullArray", "FirstSample", "LastSample"}

// Valid reports whether m is a defined time mode.
func (m TimeMode) Valid() bool { return int(m) < len(timeModeNames) }

// NeedsTimeSignal reports whether m refers to a time signal.
func (m TimeMode) NeedsTimeSignal() bool { return m != PacketTime }

// NeedsSamplingRate reports whether m derives times from SamplingRate.
func (m TimeMode) NeedsSamplingRate() bool { return m == FirstSample || m == LastSample }

func (m TimeMode) String() string {
	if !m.Valid() {
		return "invalid"
	}
	return timeModeNames[m]
}

// ParseTimeMode returns the time mode named s, as written in a configuration
// ("PacketTime", "FullArray", "FirstSample", "LastSample").
func ParseTimeMode(s string) (TimeMode, error) {
	for i, n := range timeModeNames {
		if n == s {
			return TimeMode(i), nil
		}
	}
	return 0, errors.New("udpstreamer/wire: unknown time mode " + strconv.Quote(s))
}
