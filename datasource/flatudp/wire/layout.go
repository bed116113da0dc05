package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/streamerd/streamerd/datasource"
)

// ErrSize is matched (errors.Is) by every *SizeError.
var ErrSize = errors.New("flatudp/wire: datagram size does not match the signal list")

// errShortDst reports a caller bug: a destination shorter than
// TotalElements. It is a static value so the check costs no allocation.
var errShortDst = errors.New("flatudp/wire: destination shorter than Layout.TotalElements")

// SizeError is a datagram whose size is not the layout's: it is dropped,
// never decoded.
type SizeError struct {
	Got, Want int // bytes
}

func (e *SizeError) Error() string {
	return "flatudp/wire: datagram of " + strconv.Itoa(e.Got) + " bytes, expected " +
		strconv.Itoa(e.Want) + ", check the signal list"
}

// Is makes errors.Is(err, ErrSize) true.
func (e *SizeError) Is(target error) bool { return target == ErrSize }

// invalidType is a Type no signal has.
const invalidType = datasource.Type(0xFF)

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

// ParseLayout returns the layout of a signals string: NewLayout of
// ParseSignals(s), with its errors.
func ParseLayout(s string) (*Layout, error) {
	sigs, err := ParseSignals(s)
	if err != nil {
		return nil, err
	}
	return NewLayout(sigs)
}

// NewLayout validates sigs with Validate and returns their layout. The
// layout keeps its own copy of sigs.
func NewLayout(sigs []Signal) (*Layout, error) {
	if err := Validate(sigs); err != nil {
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
// of the slices Decode, DecodeRaw and AppendRaw use.
func (l *Layout) TotalElements() int { return l.elems }

// ElementType returns the type of element k of the decoded slice, for
// formatting a row without walking the signals; an invalid Type when k is
// out of range.
func (l *Layout) ElementType(k int) datasource.Type {
	for _, sp := range l.spans {
		if k < sp.elem+sp.n {
			return sp.typ
		}
	}
	return invalidType
}

func (l *Layout) check(dst, datagram int) error {
	if datagram != l.size {
		return &SizeError{Got: datagram, Want: l.size}
	}
	if dst < l.elems {
		return errShortDst
	}
	return nil
}

func u16(p []byte, big bool) uint16 {
	if big {
		return binary.BigEndian.Uint16(p)
	}
	return binary.LittleEndian.Uint16(p)
}

func u32(p []byte, big bool) uint32 {
	if big {
		return binary.BigEndian.Uint32(p)
	}
	return binary.LittleEndian.Uint32(p)
}

func u64(p []byte, big bool) uint64 {
	if big {
		return binary.BigEndian.Uint64(p)
	}
	return binary.LittleEndian.Uint64(p)
}

// Field returns the bytes of signal i in datagram, a slice of it: for a
// char8 signal, the text to read with datasource.AppendText. It returns
// nil when datagram is not of the layout's size or i is out of range.
func (l *Layout) Field(datagram []byte, i int) []byte {
	if len(datagram) != l.size || i < 0 || i >= len(l.spans) {
		return nil
	}
	sp := l.spans[i]
	return datagram[sp.off : sp.off+sp.n*sp.typ.Size()]
}

// Decode decodes every element of datagram into dst[:TotalElements], in
// signal order, each converted to float64 (exact for every type except
// 64-bit integers beyond 2^53; a char8 element is its byte's value). A datagram of the wrong size returns a
// *SizeError and dst is left untouched; a dst shorter than TotalElements
// returns an error. It never allocates on success and never panics.
func (l *Layout) Decode(dst []float64, datagram []byte, order ByteOrder) error {
	if err := l.check(len(dst), len(datagram)); err != nil {
		return err
	}
	big := order == Big
	for _, sp := range l.spans {
		d := dst[sp.elem : sp.elem+sp.n]
		p := datagram[sp.off : sp.off+sp.n*sp.typ.Size()]
		switch sp.typ {
		case datasource.Uint8, datasource.Char8:
			for j := range d {
				d[j] = float64(p[j])
			}
		case datasource.Int8:
			for j := range d {
				d[j] = float64(int8(p[j]))
			}
		case datasource.Uint16:
			for j := range d {
				d[j] = float64(u16(p[2*j:], big))
			}
		case datasource.Int16:
			for j := range d {
				d[j] = float64(int16(u16(p[2*j:], big)))
			}
		case datasource.Uint32:
			for j := range d {
				d[j] = float64(u32(p[4*j:], big))
			}
		case datasource.Int32:
			for j := range d {
				d[j] = float64(int32(u32(p[4*j:], big)))
			}
		case datasource.Uint64:
			for j := range d {
				d[j] = float64(u64(p[8*j:], big))
			}
		case datasource.Int64:
			for j := range d {
				d[j] = float64(int64(u64(p[8*j:], big)))
			}
		case datasource.Float32:
			for j := range d {
				d[j] = float64(math.Float32frombits(u32(p[4*j:], big)))
			}
		case datasource.Float64:
			for j := range d {
				d[j] = math.Float64frombits(u64(p[8*j:], big))
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
	big := order == Big
	for _, sp := range l.spans {
		d := dst[sp.elem : sp.elem+sp.n]
		p := datagram[sp.off : sp.off+sp.n*sp.typ.Size()]
		switch sp.typ {
		case datasource.Uint8, datasource.Char8:
			for j := range d {
				d[j] = uint64(p[j])
			}
		case datasource.Int8:
			for j := range d {
				d[j] = uint64(int64(int8(p[j])))
			}
		case datasource.Uint16:
			for j := range d {
				d[j] = uint64(u16(p[2*j:], big))
			}
		case datasource.Int16:
			for j := range d {
				d[j] = uint64(int64(int16(u16(p[2*j:], big))))
			}
		case datasource.Uint32, datasource.Float32:
			for j := range d {
				d[j] = uint64(u32(p[4*j:], big))
			}
		case datasource.Int32:
			for j := range d {
				d[j] = uint64(int64(int32(u32(p[4*j:], big))))
			}
		case datasource.Uint64, datasource.Int64, datasource.Float64:
			for j := range d {
				d[j] = u64(p[8*j:], big)
			}
		}
	}
	return nil
}

// AppendRaw appends the datagram holding raw[:TotalElements] (raw values as
// DecodeRaw gives them; each is truncated to its type's width) in order to
// b, and returns the extended slice. It is DecodeRaw's inverse, bit-exact.
// It panics if raw is shorter than TotalElements.
func (l *Layout) AppendRaw(b []byte, raw []uint64, order ByteOrder) []byte {
	raw = raw[:l.elems]
	for _, sp := range l.spans {
		for _, v := range raw[sp.elem : sp.elem+sp.n] {
			b = appendRaw(b, sp.typ.Size(), v, order)
		}
	}
	return b
}

// AppendValues appends the datagram holding vals[:TotalElements], each
// converted to its type by datasource.Type.FromFloat64, in order to b. It panics if vals is
// shorter than TotalElements.
func (l *Layout) AppendValues(b []byte, vals []float64, order ByteOrder) []byte {
	vals = vals[:l.elems]
	for _, sp := range l.spans {
		for _, v := range vals[sp.elem : sp.elem+sp.n] {
			b = appendRaw(b, sp.typ.Size(), sp.typ.FromFloat64(v), order)
		}
	}
	return b
}

func appendRaw(b []byte, size int, v uint64, order ByteOrder) []byte {
	var e binary.AppendByteOrder = binary.LittleEndian
	if order == Big {
		e = binary.BigEndian
	}
	switch size {
	case 1:
		return append(b, byte(v))
	case 2:
		return e.AppendUint16(b, uint16(v))
	case 4:
		return e.AppendUint32(b, uint32(v))
	}
	return e.AppendUint64(b, v)
}

// SwapToBig writes into dst[:Size] the datagram src[:Size] with the bytes of
// every element reversed: a little-endian (x86 native) memory block becomes
// the big-endian datagram, and the other way round. dst and src may be the
// same slice (an in-place swap) but must not otherwise overlap. It panics
// if either is shorter than Size; it never allocates.
func (l *Layout) SwapToBig(dst, src []byte) {
	dst, src = dst[:l.size], src[:l.size]
	for _, sp := range l.spans {
		n := sp.n * sp.typ.Size()
		d, s := dst[sp.off:sp.off+n], src[sp.off:sp.off+n]
		switch sp.typ.Size() {
		case 1:
			copy(d, s)
		case 2:
			for j := 0; j+2 <= len(s); j += 2 {
				binary.BigEndian.PutUint16(d[j:], binary.LittleEndian.Uint16(s[j:]))
			}
		case 4:
			for j := 0; j+4 <= len(s); j += 4 {
				binary.BigEndian.PutUint32(d[j:], binary.LittleEndian.Uint32(s[j:]))
			}
		case 8:
			for j := 0; j+8 <= len(s); j += 8 {
				binary.BigEndian.PutUint64(d[j:], binary.LittleEndian.Uint64(s[j:]))
			}
		}
	}
}

// ConvertOrder writes into dst[:Size] the datagram in order of the
// little-endian memory block src[:Size]: a copy for Little, SwapToBig for
// Big. Same aliasing and panics as SwapToBig; it never allocates.
func (l *Layout) convertOrder(dst, src []byte, order ByteOrder) {
	if order == Big {
		l.SwapToBig(dst, src)
		return
	}
	copy(dst[:l.size], src[:l.size])
}
