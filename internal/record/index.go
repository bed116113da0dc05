package record

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// The sidecar index of a file being written (its path plus IndexSuffix):
// an 8-byte magic, then frames of a uint32 LE length, a uint32 LE CRC-32C
// of the payload, and the payload, whose first byte is its kind. The first
// frame is the head (the footer of the file without row groups); each
// row group appends one frame after its chunks are in the file: the end of
// its chunks and its rows (uint64 LE each), then its Thrift RowGroup. A
// frame cut short or failing its CRC ends the index: what follows it never
// counted.
const (
	IndexSuffix  = ".idx"
	indexMagic   = "SDRIDX1\n"
	frameHdrSize = 8
	frameHead    = 1
	frameGroup   = 2
	groupHdrSize = 1 + 16 // kind, end, rows
)

// maxFrame bounds one frame of the index read back.
const maxFrame = 64 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendFrame appends a frame holding payload to b.
func appendFrame(b, payload []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli))
	return append(b, payload...)
}

// indexReader reads the frames of an index.
type indexReader struct {
	r   *bufio.Reader
	buf []byte
	off int64 // bytes read, for messages
}

var errIndexEnd = errors.New("end of index")

func newIndexReader(r io.Reader) (*indexReader, error) {
	ir := &indexReader{r: bufio.NewReaderSize(r, 1<<16)}
	var m [len(indexMagic)]byte
	if _, err := io.ReadFull(ir.r, m[:]); err != nil || string(m[:]) != indexMagic {
		return nil, errors.New("not a recording index (no magic)")
	}
	ir.off = int64(len(m))
	return ir, nil
}

// next returns the next frame's payload (valid until the next call), or
// errIndexEnd at the end or at the first frame cut short or corrupt, with
// why in the second case.
func (ir *indexReader) next() ([]byte, error) {
	var h [frameHdrSize]byte
	if n, err := io.ReadFull(ir.r, h[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, errIndexEnd
		}
		return nil, fmt.Errorf("%w: frame header cut short at byte %d", errIndexEnd, ir.off)
	}
	n := binary.LittleEndian.Uint32(h[:])
	if n == 0 || n > maxFrame {
		return nil, fmt.Errorf("%w: frame of %d bytes at byte %d", errIndexEnd, n, ir.off)
	}
	if cap(ir.buf) < int(n) {
		ir.buf = make([]byte, n)
	}
	p := ir.buf[:n]
	if _, err := io.ReadFull(ir.r, p); err != nil {
		return nil, fmt.Errorf("%w: frame cut short at byte %d", errIndexEnd, ir.off)
	}
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, fmt.Errorf("%w: frame at byte %d fails its CRC", errIndexEnd, ir.off)
	}
	ir.off += frameHdrSize + int64(n)
	return p, nil
}

// groupFrame splits a row-group frame's payload.
func groupFrame(p []byte) (end int64, rows int64, rg []byte, err error) {
	if len(p) < groupHdrSize || p[0] != frameGroup {
		return 0, 0, nil, errors.New("not a row-group frame")
	}
	end = int64(binary.LittleEndian.Uint64(p[1:]))
	rows = int64(binary.LittleEndian.Uint64(p[9:]))
	if end < magicSize || rows < 0 {
		return 0, 0, nil, fmt.Errorf("row-group frame with end %d and %d rows", end, rows)
	}
	return end, rows, p[groupHdrSize:], nil
}
