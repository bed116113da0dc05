package frame

import "math"

// HeaderSize is the size in bytes of the header that starts every datagram.
const HeaderSize = 17

// MinMaxPayloadSize and MaxMaxPayloadSize bound MaxPayloadSize, the size of a whole
// datagram including its header: at least one payload byte, at most the IPv4 UDP
// payload limit.
const (
	MinMaxPayloadSize = HeaderSize + 1
	MaxMaxPayloadSize = 65507
)

// maxFragments is the largest number of datagrams one message (a CONFIG or
// a DATA update) may take: the header's totalFragments is 16 bits.
const maxFragments = 0xFFFF

// DataTimestampSize is the size of the hrtTimestamp that starts every DATA
// payload.
const DataTimestampSize = 8

// MaxCounterJump bounds a plausible forward step of the DATA counter
// (docs/udpstreamer.md, "Sequence counters"): a client takes a counter
// further ahead of the last one it accepted for a restart of the
// sequence, not for lost updates.
const MaxCounterJump = 1 << 20

// maxUpdateInt is the largest payload one update can carry: 65535
// fragments of the largest chunk, kept representable as an int on 32-bit
// platforms. Larger signal sets are refused (validateSignals).
const maxUpdateInt = min(maxFragments*(MaxMaxPayloadSize-HeaderSize), math.MaxInt)
