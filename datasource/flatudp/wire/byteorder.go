// Package wire describes, encodes and decodes the header-less datagrams of MARTe2's UDPSender: the signals packed in declaration order, nothing else.
//
// Element types are datasource.Type; the signals string names them with
// their MARTe2 spelling ("float32"), case ignored on input.
package wire

import (
	"strconv"
)

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
