package flatudp

import (
	"encoding/binary"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// elemRun is one signal's place in a datagram: bytes of elements of size
// bytes each.
type elemRun struct{ size, bytes int }

// elemRuns returns the runs of a layout's signals, in declaration order
// (the datagram is their concatenation, no padding).
func elemRuns(sigs []wire.Signal) []elemRun {
	runs := make([]elemRun, len(sigs))
	for i, s := range sigs {
		runs[i] = elemRun{size: s.Type.Size(), bytes: s.Count * s.Type.Size()}
	}
	return runs
}

// swapToBig writes into dst the datagram src laid out by runs with the
// bytes of every element reversed: a little-endian (x86 native) memory
// block becomes the big-endian datagram, and the other way round; a char8
// or uint8 run is copied as it is. dst and src may be the same slice (an
// in-place swap) but must not otherwise overlap; bytes past the runs are
// left alone. It panics if either is shorter than the runs; it never
// allocates.
func swapToBig(dst, src []byte, runs []elemRun) {
	off := 0
	for _, r := range runs {
		d, s := dst[off:off+r.bytes], src[off:off+r.bytes]
		off += r.bytes
		switch r.size {
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
