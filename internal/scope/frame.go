package scope

import (
	"encoding/binary"
	"errors"
	"math"
)

// A frame is one binary WebSocket message with what a viewer's plots show,
// little-endian, every field aligned to its size so that a page reads the
// arrays in place (Float32Array, Float64Array):
//
//	frame header, 32 bytes:
//	 0 u32 magic "SCF2"      4 u32 sequence     8 u32 signal list generation
//	12 u16 traces           14 u8 flags (bit 0: live)   15 u8 view number (the page's vid)
//	16 f64 window start     24 f64 window end  (seconds relative to each trace's anchor)
//	each trace, a 32-byte header then its points:
//	 0 u16 index in the viewer's trace list   2 u8 kind   3 u8 level (0: samples)
//	 4 u32 points n
//	 8 f64 anchor: the absolute time (seconds of the trace's clock) of relative 0
//	16 f64 last value (NaN: none yet)
//	24 f64 oldest time held, relative to the anchor (NaN: unknown)
//	32 n × f32 x: time relative to the anchor (a waveform: its x), padded to 8 bytes
//	   n × f64 y: the values; NaN is a break in the line
//	after the traces, the markers of the clocks of the time traces:
//	 0 u32 markers m          4 u32 reserved (0)
//	 then m × 16 bytes: 0 f64 time relative to the anchor of its clock
//	   8 u32 count (updates lost, cycles skipped; 1 for a silence)
//	  12 u16 clock   14 u8 kind (MarkKind)   15 u8 reserved (0)
const (
	frameMagic       uint32 = 0x32464353 // "SCF2" little-endian
	frameHeaderSize         = 32
	traceHeaderSize         = 32
	markerHeaderSize        = 8
	markerSize              = 16

	offMagic   = 0
	offSeq     = 4
	offGen     = 8
	offTraces  = 12
	offFlags   = 14
	offView    = 15
	offFrom    = 16
	offTo      = 24
	offTIndex  = 0
	offTKind   = 2
	offTLevel  = 3
	offTN      = 4
	offTAnchor = 8
	offTLast   = 16
	offTOldest = 24

	flagLive = 1
)

// TraceKind is what a trace of a frame draws.
type TraceKind uint8

// Trace kinds.
const (
	KindTrace   TraceKind = iota // a signal's samples over time
	KindWave                     // an array's latest update against its x
	KindElement                  // one element of an array over time
)

// Bounds of one viewer's frames.
const (
	// MaxTraces caps the traces of one viewer (Limits.MaxTraces may
	// lower it). A page draws 100 or 256 traces of a 1 kHz stream in 35
	// to 75 ms on a loaded 2-core machine (docs/scope.md).
	MaxTraces = 256
	// MaxFramePoints caps the points of one frame: a view of many traces
	// gets fewer columns per trace (at least minColumns), so that a frame
	// stays under about 3 MiB and the page draws it in tens of
	// milliseconds.
	MaxFramePoints = 1 << 18
)

// appendFrameHeader starts a frame; setFrameTraces fills in the count.
func appendFrameHeader(b []byte, seq, gen uint32, vid uint8, live bool, from, to float64) []byte {
	var flags byte
	if live {
		flags |= flagLive
	}
	b = binary.LittleEndian.AppendUint32(b, frameMagic)
	b = binary.LittleEndian.AppendUint32(b, seq)
	b = binary.LittleEndian.AppendUint32(b, gen)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = append(b, flags, vid)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(from))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(to))
}

// setFrameTraces writes the trace count of the frame starting at b[0].
func setFrameTraces(b []byte, n int) { binary.LittleEndian.PutUint16(b[offTraces:], uint16(n)) }

// traceHead is a trace's header fields.
type traceHead struct {
	index         int
	kind          TraceKind
	level         int
	anchor, last  float64
	oldestRelTime float64
}

// appendTrace appends one trace: p's times become f32 offsets from the
// anchor; values stay f64.
func appendTrace(b []byte, h traceHead, p *Points) []byte {
	n := p.Len()
	b = binary.LittleEndian.AppendUint16(b, uint16(h.index))
	b = append(b, byte(h.kind), byte(h.level))
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.anchor))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.last))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.oldestRelTime))
	for _, t := range p.T {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(t-h.anchor)))
	}
	if n%2 == 1 {
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	for _, v := range p.V {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// appendMarker appends one marker.
func appendMarker(b []byte, x float64, n uint32, clock int, kind MarkKind) []byte {
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	b = binary.LittleEndian.AppendUint32(b, n)
	b = binary.LittleEndian.AppendUint16(b, uint16(clock))
	return append(b, byte(kind), 0)
}

// Frame is a parsed frame (for tests and Go viewers; the page has its own
// reader in scope.js).
type Frame struct {
	Seq, Gen uint32
	View     uint8
	Live     bool
	From, To float64
	Traces   []FrameTrace
	Markers  []FrameMarker
}

// FrameMarker is one marker of a Frame.
type FrameMarker struct {
	X     float64 // relative to the anchor of its clock
	Count uint32
	Clock int
	Kind  MarkKind
}

// FrameTrace is one trace of a Frame.
type FrameTrace struct {
	Index  int
	Kind   TraceKind
	Level  int
	Anchor float64
	Last   float64
	Oldest float64
	X      []float32
	Y      []float64
}

// ErrFrame is returned by ParseFrame for a message that is not a whole,
// well-formed frame.
var ErrFrame = errors.New("scope: malformed frame")

// ParseFrame decodes a frame, checking every length before reading.
func ParseFrame(b []byte) (Frame, error) {
	le := binary.LittleEndian
	if len(b) < frameHeaderSize || le.Uint32(b[offMagic:]) != frameMagic {
		return Frame{}, ErrFrame
	}
	f := Frame{
		Seq: le.Uint32(b[offSeq:]), Gen: le.Uint32(b[offGen:]), View: b[offView], Live: b[offFlags]&flagLive != 0,
		From: math.Float64frombits(le.Uint64(b[offFrom:])), To: math.Float64frombits(le.Uint64(b[offTo:])),
	}
	n := int(le.Uint16(b[offTraces:]))
	b = b[frameHeaderSize:]
	for range n {
		if len(b) < traceHeaderSize {
			return Frame{}, ErrFrame
		}
		np := int(le.Uint32(b[offTN:]))
		xBytes := 4 * (np + np%2)
		if np > (len(b)-traceHeaderSize)/12 || len(b)-traceHeaderSize < xBytes+8*np {
			return Frame{}, ErrFrame
		}
		tr := FrameTrace{
			Index: int(le.Uint16(b[offTIndex:])), Kind: TraceKind(b[offTKind]), Level: int(b[offTLevel]),
			Anchor: math.Float64frombits(le.Uint64(b[offTAnchor:])),
			Last:   math.Float64frombits(le.Uint64(b[offTLast:])),
			Oldest: math.Float64frombits(le.Uint64(b[offTOldest:])),
			X:      make([]float32, np), Y: make([]float64, np),
		}
		xs, ys := b[traceHeaderSize:], b[traceHeaderSize+xBytes:]
		for k := range np {
			tr.X[k] = math.Float32frombits(le.Uint32(xs[4*k:]))
			tr.Y[k] = math.Float64frombits(le.Uint64(ys[8*k:]))
		}
		f.Traces = append(f.Traces, tr)
		b = b[traceHeaderSize+xBytes+8*np:]
	}
	if len(b) < markerHeaderSize {
		return Frame{}, ErrFrame
	}
	m := int(le.Uint32(b))
	b = b[markerHeaderSize:]
	if m > len(b)/markerSize || len(b) != m*markerSize {
		return Frame{}, ErrFrame
	}
	for k := range m {
		r := b[k*markerSize:]
		f.Markers = append(f.Markers, FrameMarker{X: math.Float64frombits(le.Uint64(r)), Count: le.Uint32(r[8:]),
			Clock: int(le.Uint16(r[12:])), Kind: MarkKind(r[14])})
	}
	return f, nil
}
