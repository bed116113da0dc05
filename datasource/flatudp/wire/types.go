// Package wire describes, encodes and decodes the header-less datagrams of MARTe2's UDPSender: the signals packed in declaration order, nothing else.
package wire

import (
	"errors"
	"strconv"
	"strings"
)

// Type is the element type of a signal. The numeric values are the
// UDPStreamer type codes 0..9, so the two protocols share one table.
type Type uint8

// Element types, in UDPStreamer type-code order.
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

	numTypes
)

var typeNames = [numTypes]string{
	Uint8:   "uint8",
	Int8:    "int8",
	Uint16:  "uint16",
	Int16:   "int16",
	Uint32:  "uint32",
	Int32:   "int32",
	Uint64:  "uint64",
	Int64:   "int64",
	Float32: "float32",
	Float64: "float64",
}

var typeSizes = [numTypes]uint8{1, 1, 2, 2, 4, 4, 8, 8, 4, 8}

// Valid reports whether t is one of the ten element types.
func (t Type) Valid() bool { return t < numTypes }

// Size returns the size of one element in bytes, or 0 for an invalid type.
func (t Type) Size() int {
	if t >= numTypes {
		return 0
	}
	return int(typeSizes[t])
}

// String returns the name used in the signals string ("float32"), or
// "Type(N)" for an invalid type.
func (t Type) String() string {
	if t >= numTypes {
		return "Type(" + strconv.Itoa(int(t)) + ")"
	}
	return typeNames[t]
}

// Signed reports whether t is a signed integer type.
func (t Type) Signed() bool { return t == Int8 || t == Int16 || t == Int32 || t == Int64 }

// Float reports whether t is float32 or float64.
func (t Type) Float() bool { return t == Float32 || t == Float64 }

// ParseType parses a type name as written in the signals string. Case is
// ignored; String gives the canonical lower-case spelling.
func ParseType(s string) (Type, error) {
	for t, name := range typeNames {
		if strings.EqualFold(s, name) {
			return Type(t), nil
		}
	}
	return 0, errors.New("flatudp/wire: unknown type " + strconv.Quote(s) +
		" (want uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32 or float64)")
}

// ByteOrder is the byte order of every element of a datagram. MARTe2 sends
// its native order, little-endian on x86; Big is a streamerd addition.
type ByteOrder uint8

// Byte orders; the zero value is Little, the default.
const (
	Little ByteOrder = iota
	Big
)

// String returns "little" or "big".
func (o ByteOrder) String() string {
	switch o {
	case Little:
		return "little"
	case Big:
		return "big"
	}
	return "ByteOrder(" + strconv.Itoa(int(o)) + ")"
}

// ParseByteOrder parses "little" or "big" (case ignored). The empty string
// is Little, the default of the endian configuration key.
func ParseByteOrder(s string) (ByteOrder, error) {
	switch {
	case s == "" || strings.EqualFold(s, "little"):
		return Little, nil
	case strings.EqualFold(s, "big"):
		return Big, nil
	}
	return 0, errors.New("flatudp/wire: unknown byte order " + strconv.Quote(s) + " (want little or big)")
}
