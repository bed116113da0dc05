package wire

import (
	"encoding/binary"
	"errors"
)

// Fragmentation errors.
var (
	ErrMaxPayloadSize   = errors.New("udpstreamer/wire: MaxPayloadSize outside 18..65507")
	ErrTooManyFragments = errors.New("udpstreamer/wire: payload needs more than 65535 fragments")
)

// ChunkSize is the number of payload bytes each datagram carries (all but the last
// exactly, the last at most) when datagrams are bounded by maxPayloadSize, header
// included. It is 0 when maxPayloadSize is outside MinMaxPayloadSize..MaxMaxPayloadSize.
func ChunkSize(maxPayloadSize int) int {
	if maxPayloadSize < MinMaxPayloadSize || maxPayloadSize > MaxMaxPayloadSize {
		return 0
	}
	return maxPayloadSize - HeaderSize
}

// NumFragments is the number of datagrams for a payload of the given size:
// ceil(payload/chunk), and 1 for an empty payload. It fails if maxPayloadSize is
// out of range or more than 65535 fragments would be needed.
func NumFragments(payload, maxPayloadSize int) (int, error) {
	chunk := ChunkSize(maxPayloadSize)
	if chunk == 0 {
		return 0, ErrMaxPayloadSize
	}
	if payload < 0 {
		return 0, errors.New("udpstreamer/wire: negative payload size")
	}
	if payload == 0 {
		return 1, nil
	}
	n := (payload-1)/chunk + 1
	if n > MaxFragments {
		return 0, ErrTooManyFragments
	}
	return n, nil
}

// Layout places the datagrams of one update back to back in a single wire buffer:
// datagram i is the header of fragment i immediately followed by payload bytes
// [i*Chunk, min((i+1)*Chunk, Payload)). Every datagram but the last is exactly
// SegmentSize bytes, which is what UDP_SEGMENT (GSO) requires, and the whole buffer
// can equally be cut into sendmmsg messages with Datagram.
//
// Two ways to fill a buffer of WireSize bytes without allocating:
//   - serialise in place: write the payload through Writer (or compute positions
//     with WireOffset), then call PutHeaders once the counter is known;
//   - from a payload already built elsewhere: AppendWire copies it in with headers.
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
	return Layout{Payload: payload, Chunk: ChunkSize(maxPayloadSize), Fragments: n}, nil
}

// SegmentSize is the size of every datagram but the last (HeaderSize + Chunk), the
// segment size to pass with UDP_SEGMENT.
func (l Layout) SegmentSize() int { return HeaderSize + l.Chunk }

// WireSize is the total size of all datagrams: Payload + Fragments*HeaderSize.
func (l Layout) WireSize() int { return l.Payload + l.Fragments*HeaderSize }

// FragmentLen is the number of payload bytes in fragment i.
func (l Layout) FragmentLen(i int) int {
	if i == l.Fragments-1 {
		return l.Payload - i*l.Chunk
	}
	return l.Chunk
}

// DatagramOffset is the offset in the wire buffer where datagram i (its header) starts.
func (l Layout) DatagramOffset(i int) int { return i * l.SegmentSize() }

// Datagram returns datagram i, header and chunk, as a subslice of wire.
func (l Layout) Datagram(wire []byte, i int) []byte {
	off := l.DatagramOffset(i)
	end := off + HeaderSize + l.FragmentLen(i)
	return wire[off:end:end]
}

// AppendDatagrams appends all datagrams of wire to dst as subslices, ready for
// sendmmsg. It allocates only if dst lacks capacity.
func (l Layout) AppendDatagrams(dst [][]byte, wire []byte) [][]byte {
	for i := 0; i < l.Fragments; i++ {
		dst = append(dst, l.Datagram(wire, i))
	}
	return dst
}

// WireOffset maps a payload offset in [0, Payload) to its offset in the wire
// buffer. (Payload itself maps to WireSize.)
func (l Layout) WireOffset(payloadOff int) int {
	if payloadOff >= l.Payload {
		return payloadOff - l.Payload + l.WireSize()
	}
	return payloadOff + HeaderSize*(payloadOff/l.Chunk+1)
}

// Header returns the header of fragment i of the update numbered counter.
func (l Layout) Header(typ PacketType, counter uint32, i int) Header {
	return Header{
		Type:           typ,
		Counter:        counter,
		FragmentIdx:    uint16(i),
		TotalFragments: uint16(l.Fragments),
		PayloadBytes:   uint32(l.FragmentLen(i)),
	}
}

// PutHeaders writes the headers of all fragments into the gaps of wire, leaving
// the payload bytes untouched. It panics if len(wire) < WireSize.
func (l Layout) PutHeaders(wire []byte, typ PacketType, counter uint32) {
	_ = wire[l.WireSize()-1]
	for i := 0; i < l.Fragments; i++ {
		PutHeader(wire[l.DatagramOffset(i):], l.Header(typ, counter, i))
	}
}

// AppendWire appends to b all datagrams of the update carrying payload, which must
// be exactly l.Payload bytes (it panics otherwise). It does not allocate when b has
// WireSize bytes of spare capacity.
func (l Layout) AppendWire(b []byte, typ PacketType, counter uint32, payload []byte) []byte {
	if len(payload) != l.Payload {
		panic("udpstreamer/wire: AppendWire payload size differs from layout")
	}
	for i := 0; i < l.Fragments; i++ {
		start := i * l.Chunk
		b = AppendHeader(b, l.Header(typ, counter, i))
		b = append(b, payload[start:start+l.FragmentLen(i)]...)
	}
	return b
}

// AppendFragment appends one datagram to b: the header of fragment idx of total and
// the bytes [idx*chunk, min((idx+1)*chunk, len(payload))) of payload.
func AppendFragment(b []byte, typ PacketType, counter uint32, payload []byte, idx, total, chunk int) []byte {
	start := idx * chunk
	end := min(start+chunk, len(payload))
	b = AppendHeader(b, Header{Type: typ, Counter: counter, FragmentIdx: uint16(idx), TotalFragments: uint16(total), PayloadBytes: uint32(end - start)})
	return append(b, payload[start:end]...)
}

// Writer returns a PayloadWriter that serialises the payload directly into its
// places in wire, skipping the header gaps. It panics if len(wire) < WireSize.
func (l Layout) Writer(wire []byte) PayloadWriter {
	_ = wire[l.WireSize()-1]
	return PayloadWriter{l: l, wire: wire[:l.WireSize()]}
}

// PayloadWriter writes a payload sequentially into a wire buffer laid out by a
// Layout, jumping over the header gap at every chunk boundary. Elements that
// straddle a boundary are split transparently. It is a value type with no
// allocation; writing past the end of the payload panics.
//
// The PutUintN methods inline to a bounds check and a store. For bulk work, fill
// Avail() with as many whole elements as fit, Advance, and write the one element
// that straddles the boundary with PutUintN.
type PayloadWriter struct {
	l    Layout
	wire []byte
	seg  int    // payload offset just past the current segment (cur's end)
	cur  []byte // unwritten rest of the current segment of a chunk
}

// Offset is the number of payload bytes written so far.
func (w *PayloadWriter) Offset() int { return w.seg - len(w.cur) }

// Avail returns the contiguous wire space from the current position to the end of
// the current chunk (empty at the end of the payload). Fill a prefix of it and
// call Advance with the number of bytes written.
func (w *PayloadWriter) Avail() []byte {
	if off := w.seg; len(w.cur) == 0 && off < w.l.Payload {
		wo := w.l.WireOffset(off)
		n := min(w.l.Chunk-off%w.l.Chunk, w.l.Payload-off)
		w.cur = w.wire[wo : wo+n : wo+n]
		w.seg = off + n
	}
	return w.cur
}

// Advance moves the position n bytes forward; n must not exceed len(Avail()).
func (w *PayloadWriter) Advance(n int) {
	if n < 0 || n > len(w.Avail()) {
		panic("udpstreamer/wire: PayloadWriter.Advance beyond the current chunk")
	}
	w.cur = w.cur[n:]
}

// Write copies p at the current position, across chunk boundaries.
func (w *PayloadWriter) Write(p []byte) {
	for len(p) > 0 {
		a := w.Avail()
		if len(a) == 0 {
			panic("udpstreamer/wire: PayloadWriter.Write past end of payload")
		}
		n := copy(a, p)
		w.cur = a[n:]
		p = p[n:]
	}
}

// PutUint8 writes one byte.
func (w *PayloadWriter) PutUint8(v uint8) {
	if len(w.cur) == 0 && len(w.Avail()) == 0 {
		panic("udpstreamer/wire: PayloadWriter.PutUint8 past end of payload")
	}
	w.cur[0] = v
	w.cur = w.cur[1:]
}

// PutUint16 writes v little-endian.
func (w *PayloadWriter) PutUint16(v uint16) {
	if len(w.cur) >= 2 {
		binary.LittleEndian.PutUint16(w.cur, v)
		w.cur = w.cur[2:]
		return
	}
	w.putUint16Slow(v)
}

//go:noinline
func (w *PayloadWriter) putUint16Slow(v uint16) {
	var s [2]byte
	binary.LittleEndian.PutUint16(s[:], v)
	w.Write(s[:])
}

// PutUint32 writes v little-endian.
func (w *PayloadWriter) PutUint32(v uint32) {
	if len(w.cur) >= 4 {
		binary.LittleEndian.PutUint32(w.cur, v)
		w.cur = w.cur[4:]
		return
	}
	w.putUint32Slow(v)
}

//go:noinline
func (w *PayloadWriter) putUint32Slow(v uint32) {
	var s [4]byte
	binary.LittleEndian.PutUint32(s[:], v)
	w.Write(s[:])
}

// PutUint64 writes v little-endian.
func (w *PayloadWriter) PutUint64(v uint64) {
	if len(w.cur) >= 8 {
		binary.LittleEndian.PutUint64(w.cur, v)
		w.cur = w.cur[8:]
		return
	}
	w.putUint64Slow(v)
}

//go:noinline
func (w *PayloadWriter) putUint64Slow(v uint64) {
	var s [8]byte
	binary.LittleEndian.PutUint64(s[:], v)
	w.Write(s[:])
}
