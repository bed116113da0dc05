package udpstreamer

import (
	"encoding/binary"
	"math"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/quant"
)

// stampSize is the room for the hrtTimestamp before signal memory in the
// ready and taken buffers, where the DATA payload has it.
const stampSize = frame.DataTimestampSize

// piece is a run of the DATA payload that no header gap cuts, and how it is
// made from the taken buffer: a raw copy (the stamp and the raw signals
// next to it make one run), a run of whole quantised codes, or one 2-byte
// code cut by a header gap (split > 0: its low byte goes to dst, its high
// byte to dst2; signal memory and the wire are both little-endian).
type piece struct {
	src, srcEnd int              // bytes of taken
	dst         int              // offset in the wire buffer
	q           *quant.Quantizer // nil: raw copy
	f32         bool             // q's samples are float32, not float64
	split, dst2 int
}

// planPieces cuts the DATA payload of sigs, laid out by l, into pieces.
// Signal i lies at stampSize+mem.Offset(i) in the taken buffer.
func planPieces(l frame.Layout, sigs []datasource.Signal, mem *memory.Memory) ([]piece, error) {
	var ps []piece
	off := 0 // payload offset of the next byte
	// cut appends the pieces of p, a run of samples of in bytes that make
	// codes of out bytes (1 and 1 for a raw run).
	cut := func(p piece, in, out int) {
		for src := p.src; src < p.srcEnd; {
			room := l.Chunk - off%l.Chunk // bytes before the next header gap
			n := min(room/out, (p.srcEnd-src)/in)
			c := p
			c.src, c.dst = src, l.WireOffset(off)
			if n == 0 {
				n, c.split, c.dst2 = 1, room, l.WireOffset(off+room)
			}
			c.srcEnd = src + n*in
			ps = append(ps, c)
			src, off = c.srcEnd, off+n*out
		}
	}
	raw := piece{srcEnd: stampSize} // the raw run being gathered
	for i := range sigs {
		sig := &sigs[i]
		src, end := stampSize+mem.Offset(i), stampSize+mem.Offset(i)+sig.ByteSize()
		if sig.QuantizedType == quant.None {
			raw.srcEnd = end
			continue
		}
		q, err := quant.New(sig.QuantizedType, sig.RangeMin, sig.RangeMax)
		if err != nil {
			return nil, err
		}
		cut(raw, 1, 1)
		cut(piece{src: src, srcEnd: end, q: &q, f32: sig.Type == datasource.Float32}, sig.Type.Size(), q.WireType().Size())
		raw = piece{src: end, srcEnd: end}
	}
	cut(raw, 1, 1)
	return ps, nil
}

// serialise writes the DATA payload of the taken cycle into its places in
// the wire buffer, around the header gaps: the hrtTimestamp and every
// signal in CONFIG order, quantised where configured. Each byte is written
// once; the headers are PutHeaders' job.
func (s *Streamer) serialise() {
	nans := 0
	for i := range s.pieces {
		p := &s.pieces[i]
		src := s.taken[p.src:p.srcEnd]
		switch {
		case p.q == nil:
			copy(s.wire[p.dst:], src)
		case p.split == 0:
			nans += p.encode(s.wire[p.dst:], src)
		default: // a 2-byte code cut by a gap: the scalar reference, no kernel call
			v := p.sample(src)
			if v != v {
				nans++
			}
			code := uint16(p.q.Code(v))
			s.wire[p.dst], s.wire[p.dst2] = byte(code), byte(code>>8)
		}
	}
	if nans != 0 {
		s.m.nanInputs.Add(nans)
	}
}

// sample returns the one sample of src as float64.
func (p *piece) sample(src []byte) float64 {
	if p.f32 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(src)))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(src))
}

// encode quantises the samples of src into dst and returns how many were
// NaN.
func (p *piece) encode(dst, src []byte) (nans int) {
	if p.f32 {
		return p.q.EncodeFloat32(dst, memory.View[float32](src))
	}
	return p.q.EncodeFloat64(dst, memory.View[float64](src))
}
