package frame

import (
	"encoding/binary"
	"errors"

	"github.com/streamerd/streamerd/datasource"
)

// ErrDataLength is returned when a DATA payload's length differs from the size the
// CONFIG implies, or a slot lies outside the payload.
var ErrDataLength = errors.New("udpstreamer: DATA payload length does not match CONFIG")

// DataPayloadSize is the size in bytes of the DATA payload for sigs: the 8-byte
// timestamp plus every signal's WireBytes. sigs must be valid (ValidateSignals).
func DataPayloadSize(sigs []SignalInfo) int {
	n := DataTimestampSize
	for i := range sigs {
		n += sigs[i].WireBytes()
	}
	return n
}

// ParseDataTimestamp returns the hrtTimestamp of a DATA payload.
func ParseDataTimestamp(b []byte) (uint64, error) {
	if len(b) < DataTimestampSize {
		return 0, ErrDataLength
	}
	return binary.LittleEndian.Uint64(b), nil
}

// Slot locates one signal's data inside a DATA payload.
type Slot struct {
	Offset   int             // from the start of the payload
	Len      int             // bytes: Elements * ElemSize
	Elements int             // NumRows*NumCols
	WireType datasource.Type // element type on the wire (the quantised type if quantised)
}

// ElemSize is the size in bytes of one element on the wire.
func (s Slot) ElemSize() int { return s.WireType.Size() }

// AppendSlots appends one Slot per signal of sigs, in CONFIG order, to dst and
// returns it with the total DATA payload size. sigs must be valid (ParseConfig
// output or checked with ValidateSignals). It allocates only if dst is short.
func AppendSlots(dst []Slot, sigs []SignalInfo) ([]Slot, int) {
	off := DataTimestampSize
	for i := range sigs {
		s := &sigs[i]
		sl := Slot{Offset: off, Elements: s.Elements(), WireType: s.WireType()}
		sl.Len = sl.Elements * sl.WireType.Size()
		dst = append(dst, sl)
		off += sl.Len
	}
	return dst, off
}

// Bytes returns the slot's bytes in payload, or ErrDataLength if the slot does not
// lie inside payload. The result aliases payload.
func (s Slot) Bytes(payload []byte) ([]byte, error) {
	if s.Offset < 0 || s.Len < 0 || s.Offset > len(payload) || s.Len > len(payload)-s.Offset {
		return nil, ErrDataLength
	}
	return payload[s.Offset : s.Offset+s.Len : s.Offset+s.Len], nil
}
