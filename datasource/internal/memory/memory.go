// Package memory is a producer's signal memory: one zeroed block, the signals packed in declaration order, and typed views of it.
package memory

import (
	"unsafe"

	"github.com/streamerd/streamerd/datasource"
)

// Memory is the signal memory of a DataSource: one zeroed block with the
// signals packed in declaration order and no padding, as MARTe2's
// MemoryDataSourceI lays it out. The block is allocated once and never moves,
// so slices returned by Signal stay valid for the life of the Memory.
//
// Memory does no locking: the RT thread owns it between Synchronise calls.
type Memory struct {
	block   []byte
	offsets []int // offsets[i] is where signal i starts; offsets[len(sigs)] is the block size
}

// New allocates the block for sigs, which must have been validated.
func New(sigs []datasource.Signal) *Memory {
	offsets := make([]int, len(sigs)+1)
	for i := range sigs {
		offsets[i+1] = offsets[i] + sigs[i].ByteSize()
	}
	return &Memory{block: make([]byte, offsets[len(sigs)]), offsets: offsets}
}

// Block returns the whole block.
func (m *Memory) Block() []byte { return m.block }

// Size returns the block size in bytes.
func (m *Memory) Size() int { return len(m.block) }

// Offset returns the byte offset of signal i in the block.
func (m *Memory) Offset(i int) int { return m.offsets[i] }

// Signals returns how many signals the block holds.
func (m *Memory) Signals() int { return len(m.offsets) - 1 }

// Signal returns the bytes of signal i, with its capacity clipped so an
// append can never spill into the next signal.
func (m *Memory) Signal(i int) []byte {
	return m.block[m.offsets[i]:m.offsets[i+1]:m.offsets[i+1]]
}

// Bytes returns the memory of s as bytes, without copying; the result
// aliases s.
func Bytes[T datasource.Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// View returns b as a []T of len(b)/sizeof(T) elements, without copying; the
// result aliases b. Signal memory is packed, so the first element may be
// unaligned for T: the CPUs this targets (amd64, arm64) load and store
// unaligned scalars, and the Go runtime accepts unaligned pointers to
// pointer-free types. The values are in native byte order. The caller
// checks that T is the signal's type.
func View[T datasource.Number](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
