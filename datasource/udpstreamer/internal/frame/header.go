// Package frame is the UDPStreamer wire protocol below CONFIG: datagram headers, DATA payload slots, fragmentation and reassembly, and the sequence gate, without doing any I/O.
//
// The producer writes updates with it and the client reads them; neither
// is an API: a program receiving a stream uses the client package, and
// the CONFIG message and the protocol's bounds are in the public wire
// package.
package frame

import "encoding/binary"

// magic is the first header field, 'UDPS' in little-endian byte order.
const magic uint32 = 0x53504455

// Header field offsets (little-endian, packed, '<IBIHHI').
const (
	offMagic          = 0
	offType           = 4
	offCounter        = 5
	offFragmentIdx    = 9
	offTotalFragments = 11
	offPayloadBytes   = 13
)

// PacketType is the header's type field.
type PacketType uint8

// Packet types. Data and Config go from server to client, the rest from client to server.
const (
	Data       PacketType = 0
	Config     PacketType = 1
	Ack        PacketType = 2
	Connect    PacketType = 3
	Disconnect PacketType = 4
)

// Valid reports whether t is one of the five defined packet types.
func (t PacketType) Valid() bool { return t <= Disconnect }

func (t PacketType) String() string {
	switch t {
	case Data:
		return "DATA"
	case Config:
		return "CONFIG"
	case Ack:
		return "ACK"
	case Connect:
		return "CONNECT"
	case Disconnect:
		return "DISCONNECT"
	}
	return "unknown"
}

// Header is the decoded 17-byte datagram header. The magic is implicit.
type Header struct {
	Type           PacketType
	Counter        uint32 // per-update sequence number, shared by all fragments of one update
	FragmentIdx    uint16 // 0-based index of this fragment
	TotalFragments uint16 // number of fragments of this update, at least 1
	PayloadBytes   uint32 // bytes following the header in this datagram
}

// AppendHeader appends the 17-byte encoding of h to b.
func AppendHeader(b []byte, h Header) []byte {
	b = binary.LittleEndian.AppendUint32(b, magic)
	b = append(b, byte(h.Type))
	b = binary.LittleEndian.AppendUint32(b, h.Counter)
	b = binary.LittleEndian.AppendUint16(b, h.FragmentIdx)
	b = binary.LittleEndian.AppendUint16(b, h.TotalFragments)
	return binary.LittleEndian.AppendUint32(b, h.PayloadBytes)
}

// PutHeader writes the encoding of h into b[:HeaderSize]. It panics if b is shorter.
func PutHeader(b []byte, h Header) {
	_ = b[HeaderSize-1]
	binary.LittleEndian.PutUint32(b[offMagic:], magic)
	b[offType] = byte(h.Type)
	binary.LittleEndian.PutUint32(b[offCounter:], h.Counter)
	binary.LittleEndian.PutUint16(b[offFragmentIdx:], h.FragmentIdx)
	binary.LittleEndian.PutUint16(b[offTotalFragments:], h.TotalFragments)
	binary.LittleEndian.PutUint32(b[offPayloadBytes:], h.PayloadBytes)
}

// ParseHeader decodes the header of the whole datagram b and returns it with the
// number of bytes consumed (HeaderSize); the payload is b[HeaderSize:].
// It fails with a HeaderError when b is short, the magic is wrong, the type is
// unknown, the fragment fields are inconsistent, or payloadBytes differs from the
// number of bytes actually following the header. It never allocates.
func ParseHeader(b []byte) (Header, int, error) {
	if len(b) < HeaderSize {
		return Header{}, 0, ErrShort
	}
	if binary.LittleEndian.Uint32(b[offMagic:]) != magic {
		return Header{}, 0, ErrMagic
	}
	h := Header{
		Type:           PacketType(b[offType]),
		Counter:        binary.LittleEndian.Uint32(b[offCounter:]),
		FragmentIdx:    binary.LittleEndian.Uint16(b[offFragmentIdx:]),
		TotalFragments: binary.LittleEndian.Uint16(b[offTotalFragments:]),
		PayloadBytes:   binary.LittleEndian.Uint32(b[offPayloadBytes:]),
	}
	if !h.Type.Valid() {
		return Header{}, 0, ErrType
	}
	if h.TotalFragments == 0 || h.FragmentIdx >= h.TotalFragments {
		return Header{}, 0, ErrFragment
	}
	if uint64(h.PayloadBytes) != uint64(len(b)-HeaderSize) {
		return Header{}, 0, ErrPayloadLength
	}
	return h, HeaderSize, nil
}

// HeaderError is the reason ParseHeader rejected a datagram. Its values are small
// integers so a server can count drops in an array indexed by reason without
// allocating; compare with == or errors.Is.
type HeaderError uint8

// ParseHeader's errors.
const (
	ErrShort         HeaderError = iota + 1 // fewer than HeaderSize bytes
	ErrMagic                                // magic is not 'UDPS'
	ErrType                                 // unknown packet type
	ErrFragment                             // totalFragments is 0 or fragmentIdx >= totalFragments
	ErrPayloadLength                        // payloadBytes differs from the bytes present
)

// NumHeaderErrors is one more than the largest HeaderError, for sizing counter arrays.
const NumHeaderErrors = int(ErrPayloadLength) + 1

var headerErrors = [NumHeaderErrors]string{
	"udpstreamer: header error",
	ErrShort:         "udpstreamer: datagram shorter than header",
	ErrMagic:         "udpstreamer: bad magic",
	ErrType:          "udpstreamer: unknown packet type",
	ErrFragment:      "udpstreamer: bad fragment index or count",
	ErrPayloadLength: "udpstreamer: payloadBytes does not match datagram length",
}

func (e HeaderError) Error() string { return errorText(headerErrors[:], int(e)) }

// errorText returns the message of error code i from its table, whose
// first entry stands for any code without one. The messages are constant
// strings, so reporting an error code never allocates.
func errorText(texts []string, i int) string {
	if i < 0 || i >= len(texts) {
		i = 0
	}
	return texts[i]
}
