package datasource

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

// NewMemory allocates the block for sigs, which must have been validated.
func NewMemory(sigs []Signal) *Memory {
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

// Signal returns the bytes of signal i, with its capacity clipped so an
// append can never spill into the next signal.
func (m *Memory) Signal(i int) []byte {
	return m.block[m.offsets[i]:m.offsets[i+1]:m.offsets[i+1]]
}
