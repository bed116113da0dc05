package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/streamerd/streamerd/datasource"
)

// ErrSize is returned (or wrapped) for a datagram whose size is not its
// layout's: it is dropped, never decoded.
var ErrSize = errors.New("flatudp/wire: datagram size does not match the signal list")

// errShortDst reports a caller bug: a destination shorter than
// TotalElements. It is a static value so the check costs no allocation.
var errShortDst = errors.New("flatudp/wire: destination shorter than Layout.TotalElements")

// span is one signal's place in a datagram and in the decoded slice.
type span struct {
	typ  datasource.Type
	off  int // byte offset in the datagram
	n    int // elements
	elem int // index of the first element in the decoded slice
}

// Layout is the datagram of a signal list: the signals packed in
// declaration order, no padding, no header (MARTe2's MemoryDataSourceI
// layout; signal s starts at the running sum of size*count before it).
//
// A Layout is immutable once made, and safe for concurrent use. The
// exported fields describe it; changing them does not change how it
// decodes, and callers must not rely on doing so.
type Layout struct {
	Signals   []Signal
	offsetsOf []int // byte offset of each signal
	Size      int   // datagram size in bytes

	spans []span
	size  int
	elems int
}

// ParseLayout returns the layout of a signals string (rows name:type or
// name:type[count], an optional trailing w, joined by commas; spaces
// around names, types and rows are ignored). Errors name the row and the
// rule.
func ParseLayout(s string) (*Layout, error) {
	sigs, err := parseSignals(s)
	if err != nil {
		return nil, err
	}
	return NewLayout(sigs)
}

// NewLayout checks the wire rules of sigs and returns their layout: at
// least one signal; names non-empty, unique and free of the signals
// string's separators (",:[]", leading or trailing spaces, control
// characters); a valid type; count 1..MaxCount; total size at most
// MaxDatagramSize bytes; and a waveform row has count > 1 (otherwise its
// "w" cannot be written). Errors name the row and the rule. The layout keeps its
// own copy of sigs.
func NewLayout(sigs []Signal) (*Layout, error) {
	if err := validate(sigs); err != nil {
		return nil, err
	}
	l := &Layout{
		Signals:   append([]Signal(nil), sigs...),
		offsetsOf: make([]int, len(sigs)),
		spans:     make([]span, len(sigs)),
	}
	off, elem := 0, 0
	for i, s := range sigs {
		l.offsetsOf[i] = off
		l.spans[i] = span{typ: s.Type, off: off, n: s.Count, elem: elem}
		off += s.size()
		elem += s.Count
	}
	l.Size, l.size, l.elems = off, off, elem
	return l, nil
}

// TotalElements returns the number of elements of a datagram, the length
// of the slices Decode and DecodeRaw fill (0 for a nil Layout).
func (l *Layout) TotalElements() int {
	if l == nil {
		return 0
	}
	return l.elems
}

// errNilLayout is Decode's and DecodeRaw's error on a nil Layout (such as
// the nil a failed NewLayout returns, its error ignored).
var errNilLayout = errors.New("flatudp/wire: nil Layout (make one with NewLayout or ParseLayout, and check its error)")

func (l *Layout) check(dst, datagram int) error {
	if l == nil {
		return errNilLayout
	}
	if datagram != l.size {
		return ErrSize
	}
	if dst < l.elems {
		return errShortDst
	}
	return nil
}

// Field returns the bytes of signal i in datagram, a slice of it: for a
// char8 signal, its text, NUL-padded. It returns
// nil when datagram is not of the layout's size, i is out of range or l is
// nil.
func (l *Layout) Field(datagram []byte, i int) []byte {
	if l == nil || len(datagram) != l.size || i < 0 || i >= len(l.spans) {
		return nil
	}
	sp := l.spans[i]
	return datagram[sp.off : sp.off+sp.n*sp.typ.Size()]
}

// Decode decodes every element of datagram into dst[:TotalElements], in
// signal order, each converted to float64 (exact for every type except
// 64-bit integers beyond 2^53; a char8 element is its byte's value). A
// datagram of the wrong size returns ErrSize and dst is left untouched;
// a dst shorter than TotalElements returns an error. It never allocates
// on success and never panics.
func (l *Layout) Decode(dst []float64, datagram []byte, order ByteOrder) error {
	if err := l.check(len(dst), len(datagram)); err != nil {
		return err
	}
	var raw [16]uint64 // a span's raw bits, a chunk at a time
	for _, sp := range l.spans {
		size := sp.typ.Size()
		for done := 0; done < sp.n; done += len(raw) {
			n := min(sp.n-done, len(raw))
			p := datagram[sp.off+done*size : sp.off+(done+n)*size]
			decodeRaw(raw[:n], p, sp.typ, order == Big)
			d := dst[sp.elem+done : sp.elem+done+n]
			switch {
			case sp.typ == datasource.Float32:
				for j, r := range raw[:n] {
					d[j] = float64(math.Float32frombits(uint32(r)))
				}
			case sp.typ == datasource.Float64:
				for j, r := range raw[:n] {
					d[j] = math.Float64frombits(r)
				}
			case sp.typ.Signed():
				for j, r := range raw[:n] {
					d[j] = float64(int64(r))
				}
			default:
				for j, r := range raw[:n] {
					d[j] = float64(r)
				}
			}
		}
	}
	return nil
}

// DecodeRaw decodes every element of datagram into dst[:TotalElements] as
// its raw bits: unsigned integers and char8 bytes zero-extended, signed integers
// sign-extended (two's complement in a uint64), float32 as its 32 bits and
// float64 as its 64 bits, so values compare bit-exact. Errors as Decode; it
// never allocates on success and never panics.
func (l *Layout) DecodeRaw(dst []uint64, datagram []byte, order ByteOrder) error {
	if err := l.check(len(dst), len(datagram)); err != nil {
		return err
	}
	for _, sp := range l.spans {
		decodeRaw(dst[sp.elem:sp.elem+sp.n], datagram[sp.off:sp.off+sp.n*sp.typ.Size()], sp.typ, order == Big)
	}
	return nil
}

// decodeRaw decodes the len(dst) elements of type t in p into dst as raw
// bits (DecodeRaw): read little-endian, then, for a big-endian datagram,
// each element's bytes reversed, then sign-extended.
func decodeRaw(dst []uint64, p []byte, t datasource.Type, big bool) {
	le := binary.LittleEndian
	switch t.Size() {
	case 1:
		for j := range dst {
			dst[j] = uint64(p[j])
		}
	case 2:
		for j := range dst {
			dst[j] = uint64(le.Uint16(p[2*j:]))
		}
	case 4:
		for j := range dst {
			dst[j] = uint64(le.Uint32(p[4*j:]))
		}
	case 8:
		for j := range dst {
			dst[j] = le.Uint64(p[8*j:])
		}
	}
	if big && t.Size() > 1 {
		shift := 64 - 8*uint(t.Size())
		for j, v := range dst {
			dst[j] = bits.ReverseBytes64(v) >> shift
		}
	}
	if t.Signed() {
		shift := 64 - 8*uint(t.Size())
		for j, v := range dst {
			dst[j] = uint64(int64(v<<shift) >> shift)
		}
	}
}
