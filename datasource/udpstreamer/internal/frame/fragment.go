package frame

import (
	"errors"
)

// Fragmentation errors.
var (
	errMaxPayloadSize   = errors.New("udpstreamer: MaxPayloadSize outside 18..65507")
	errTooManyFragments = errors.New("udpstreamer: payload needs more than 65535 fragments")
)

// chunkSize is the number of payload bytes each datagram carries (all but the last
// exactly, the last at most) when datagrams are bounded by maxPayloadSize, header
// included. It is 0 when maxPayloadSize is outside MinMaxPayloadSize..MaxMaxPayloadSize.
func chunkSize(maxPayloadSize int) int {
	if maxPayloadSize < MinMaxPayloadSize || maxPayloadSize > MaxMaxPayloadSize {
		return 0
	}
	return maxPayloadSize - HeaderSize
}

// NumFragments is the number of datagrams for a payload of the given size:
// ceil(payload/chunk), and 1 for an empty payload. It fails if maxPayloadSize is
// out of range or more than 65535 fragments would be needed.
func NumFragments(payload, maxPayloadSize int) (int, error) {
	chunk := chunkSize(maxPayloadSize)
	if chunk == 0 {
		return 0, errMaxPayloadSize
	}
	if payload < 0 {
		return 0, errors.New("udpstreamer: negative payload size")
	}
	if payload == 0 {
		return 1, nil
	}
	n := (payload-1)/chunk + 1
	if n > maxFragments {
		return 0, errTooManyFragments
	}
	return n, nil
}

// Layout places the datagrams of one update back to back in a single wire buffer:
// datagram i is the header of fragment i immediately followed by payload bytes
// [i*Chunk, min((i+1)*Chunk, Payload)). Every datagram but the last is exactly
// SegmentSize bytes, which is what UDP_SEGMENT (GSO) requires, and the whole buffer
// can equally be cut into sendmmsg messages with Datagram.
//
// A server fills a buffer of WireSize bytes without allocating and writes every
// byte once: it serialises the payload into its places (WireOffset maps each
// payload byte to the wire buffer; a chunk of payload never spans a header), or
// copies a ready payload in with PutPayload, then calls PutHeaders once the
// counter is known.
//
// A Layout is a small value computed once per configuration and safe to share.
type Layout struct {
	Payload   int // payload bytes of one update
	Chunk     int // payload bytes per datagram, except the last
	Fragments int // number of datagrams, 1..65535
}

// NewLayout computes the layout of a payload of the given size for datagrams of at
// most maxPayloadSize bytes, header included.
func NewLayout(payload, maxPayloadSize int) (Layout, error) {
	n, err := NumFragments(payload, maxPayloadSize)
	if err != nil {
		return Layout{}, err
	}
	return Layout{Payload: payload, Chunk: chunkSize(maxPayloadSize), Fragments: n}, nil
}

// SegmentSize is the size of every datagram but the last (HeaderSize + Chunk), the
// segment size to pass with UDP_SEGMENT.
func (l Layout) SegmentSize() int { return HeaderSize + l.Chunk }

// WireSize is the total size of all datagrams: Payload + Fragments*HeaderSize.
func (l Layout) WireSize() int { return l.Payload + l.Fragments*HeaderSize }

// fragmentLen is the number of payload bytes in fragment i.
func (l Layout) fragmentLen(i int) int {
	if i == l.Fragments-1 {
		return l.Payload - i*l.Chunk
	}
	return l.Chunk
}

// datagramOffset is the offset in the wire buffer where datagram i (its header) starts.
func (l Layout) datagramOffset(i int) int { return i * l.SegmentSize() }

// Datagram returns datagram i, header and chunk, as a subslice of wire.
func (l Layout) Datagram(wire []byte, i int) []byte {
	off := l.datagramOffset(i)
	end := off + HeaderSize + l.fragmentLen(i)
	return wire[off:end:end]
}

// WireOffset maps a payload offset in [0, Payload) to its offset in the wire
// buffer. The Chunk payload bytes starting at a multiple of Chunk are
// contiguous there; the next byte follows the next datagram's header.
func (l Layout) WireOffset(payloadOff int) int {
	return payloadOff + HeaderSize*(payloadOff/l.Chunk+1)
}

// PutPayload copies payload, which must be exactly Payload bytes, into its
// places in wire, leaving the header gaps untouched. It panics if the sizes
// differ or len(wire) < WireSize.
func (l Layout) PutPayload(wire, payload []byte) {
	if len(payload) != l.Payload {
		panic("udpstreamer: PutPayload payload size differs from layout")
	}
	_ = wire[l.WireSize()-1]
	for off := 0; off < l.Payload; off += l.Chunk {
		copy(wire[l.WireOffset(off):], payload[off:min(off+l.Chunk, l.Payload)])
	}
}

// CopyPayload copies the payload out of wire, laid out by l, into
// payload, which must be exactly Payload bytes: PutPayload's inverse, what
// a reassembler makes of the datagrams. It panics if the sizes differ or
// len(wire) < WireSize.
func (l Layout) CopyPayload(payload, wire []byte) {
	if len(payload) != l.Payload {
		panic("udpstreamer: CopyPayload payload size differs from layout")
	}
	_ = wire[l.WireSize()-1]
	for off := 0; off < l.Payload; off += l.Chunk {
		copy(payload[off:min(off+l.Chunk, l.Payload)], wire[l.WireOffset(off):])
	}
}

// header returns the header of fragment i of the update numbered counter.
func (l Layout) header(typ PacketType, counter uint32, i int) Header {
	return Header{
		Type:           typ,
		Counter:        counter,
		FragmentIdx:    uint16(i),
		TotalFragments: uint16(l.Fragments),
		PayloadBytes:   uint32(l.fragmentLen(i)),
	}
}

// PutHeaders writes the headers of all fragments into the gaps of wire, leaving
// the payload bytes untouched. It panics if len(wire) < WireSize.
func (l Layout) PutHeaders(wire []byte, typ PacketType, counter uint32) {
	_ = wire[l.WireSize()-1]
	for i := 0; i < l.Fragments; i++ {
		PutHeader(wire[l.datagramOffset(i):], l.header(typ, counter, i))
	}
}
