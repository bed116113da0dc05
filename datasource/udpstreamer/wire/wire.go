// Package wire holds what a program needs to read or write the UDPStreamer protocol's CONFIG message and its bounds: the signal records, their rules, their encoding.
//
// A Go program receiving a stream uses the client package, which does the
// rest (headers, reassembly, ordering, decoding); docs/udpstreamer.md
// describes every byte for a client written in another language. A
// CONFIG record carries a signal's datasource.Type, datasource.TimeMode
// and quant.WireType each as its own value in one byte.
package wire

// HeaderSize is the size in bytes of the header that starts every datagram.
const HeaderSize = 17

// MinMaxPayloadSize and MaxMaxPayloadSize bound MaxPayloadSize, the size of a whole
// datagram including its header: at least one payload byte, at most the IPv4 UDP
// payload limit.
const (
	MinMaxPayloadSize = HeaderSize + 1
	MaxMaxPayloadSize = 65507
)

// MaxFragments is the largest number of datagrams one message (a CONFIG or
// a DATA update) may take: the header's totalFragments is 16 bits.
const MaxFragments = 0xFFFF

// DataTimestampSize is the size of the hrtTimestamp that starts every DATA
// payload.
const DataTimestampSize = 8

// MaxCounterJump bounds a plausible forward step of the DATA counter
// (docs/udpstreamer.md, "Sequence counters"): a client takes a counter
// further ahead of the last one it accepted for a restart of the
// sequence, not for lost updates.
const MaxCounterJump = 1 << 20
