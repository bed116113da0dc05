package frame

import "errors"

// DropReason is why a Reassembler refused a fragment. Values are small integers
// (index counters with them) and the error values do not allocate.
type DropReason uint8

// Drop reasons.
const (
	DropMalformed    DropReason = iota + 1 // header fields or fragment length inconsistent (or AddDatagram's header failed to parse)
	DropWrongType                          // not the packet type this Reassembler handles
	DropTooLarge                           // update would exceed MaxPayload or the fragment limit
	DropInconsistent                       // disagrees with the in-flight update (totalFragments, chunk size) or the expected payload size
	DropDuplicate                          // fragment already received, or update already completed
	DropStale                              // counter too old: beyond MaxAge, or older than every in-flight update with no slot free
)

// NumDropReasons is one more than the largest DropReason, for sizing counter arrays.
const NumDropReasons = int(DropStale) + 1

// dropReasons are the messages of the drop reasons, in their order.
var dropReasons = [NumDropReasons]string{
	"udpstreamer: fragment dropped",
	"udpstreamer: malformed fragment",
	"udpstreamer: fragment of another packet type",
	"udpstreamer: fragment exceeds reassembly limits",
	"udpstreamer: fragment inconsistent with its update",
	"udpstreamer: duplicate fragment",
	"udpstreamer: stale fragment",
}

func (d DropReason) Error() string { return errorText(dropReasons[:], int(d)) }

// ReassemblerConfig sizes a Reassembler. All memory is allocated by NewReassembler
// from these numbers: about InFlight * (MaxPayload [+ chunk stash] + MaxPayload/512) bytes.
type ReassemblerConfig struct {
	Type       PacketType // packet type handled; others are dropped
	MaxPayload int        // largest reassembled payload in bytes, at least 1
	Chunk      int        // if > 0, every fragment but the last must carry exactly Chunk bytes; 0 learns it per update
	InFlight   int        // updates reassembled at once; 0 means 4
	MaxAge     int        // an incomplete update is dropped when a counter more than MaxAge newer arrives; 0 means InFlight
}

type reslot struct {
	used     bool
	counter  uint32
	total    int
	chunk    int // 0 while unknown
	got      int
	size     int // payload size, valid once the last fragment is placed
	stashed  bool
	stashLen int
	bits     []uint64
	buf      []byte
	stash    []byte // the last fragment while the chunk size is unknown
}

// ReassemblerStats counts what a Reassembler did since construction.
type ReassemblerStats struct {
	Completed uint64                 // updates returned
	Evicted   uint64                 // incomplete updates discarded (too old, slot needed, or a resync)
	Resyncs   uint64                 // fragments so far behind the newest counter (beyond MaxAge and ReorderWindow) that the counter history was restarted at them
	Drops     [NumDropReasons]uint64 // fragments refused, indexed by DropReason
}

// Reassembler rebuilds the payloads of one packet type (DATA or CONFIG) from
// fragments arriving in any order, duplicated, or interleaved across up to
// InFlight counters. Memory is fixed at construction and Add never allocates.
// Completion order is arrival order: pass DATA counters through a SequenceGate.
// Call Reset on every (re)connect, since the producer restarts its counters.
// A fragment older than the newest counter by more than MaxAge is refused
// as stale, unless it is more than ReorderWindow older: then the history
// restarts at it (Stats().Resyncs), so that a stray datagram with a far
// newer counter cannot block the sequence.
// Not safe for concurrent use.
type Reassembler struct {
	typ      PacketType
	max      int
	chunk    int
	maxFrags int
	maxAge   int32
	expect   int

	slots     []reslot
	done      []uint32 // ring of recently completed counters
	doneN     int
	doneNext  int
	newest    uint32
	hasNewest bool

	stats ReassemblerStats
}

// NewReassembler allocates a Reassembler for cfg.
func NewReassembler(cfg ReassemblerConfig) (*Reassembler, error) {
	if cfg.MaxPayload < 1 || uint64(cfg.MaxPayload) > maxUpdateInt {
		return nil, errors.New("udpstreamer: ReassemblerConfig.MaxPayload out of range")
	}
	if cfg.Chunk < 0 || cfg.Chunk > MaxMaxPayloadSize-HeaderSize || cfg.InFlight < 0 || cfg.MaxAge < 0 || cfg.MaxAge > 1<<30 {
		return nil, errors.New("udpstreamer: invalid ReassemblerConfig")
	}
	if cfg.InFlight == 0 {
		cfg.InFlight = 4
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = cfg.InFlight
	}
	r := &Reassembler{typ: cfg.Type, max: cfg.MaxPayload, chunk: cfg.Chunk, maxAge: int32(cfg.MaxAge)}
	if cfg.Chunk > 0 {
		r.maxFrags = (cfg.MaxPayload-1)/cfg.Chunk + 1
	} else {
		r.maxFrags = cfg.MaxPayload
	}
	r.maxFrags = min(r.maxFrags, maxFragments)
	stash := 0
	if cfg.Chunk == 0 {
		stash = min(cfg.MaxPayload, MaxMaxPayloadSize-HeaderSize)
	}
	r.slots = make([]reslot, cfg.InFlight)
	for i := range r.slots {
		r.slots[i].bits = make([]uint64, (r.maxFrags+63)/64)
		r.slots[i].buf = make([]byte, cfg.MaxPayload)
		r.slots[i].stash = make([]byte, stash)
	}
	r.done = make([]uint32, cfg.MaxAge+1)
	return r, nil
}

// SetExpectedPayload makes every update other than of exactly n bytes be refused
// (DropInconsistent), e.g. the DATA size implied by the session's CONFIG. With n = 0
// any size up to MaxPayload is accepted. In-flight updates are discarded, since
// they were checked against the previous size; the counter history is kept.
func (r *Reassembler) SetExpectedPayload(n int) error {
	if n < 0 || n > r.max {
		return errors.New("udpstreamer: expected payload exceeds MaxPayload")
	}
	r.expect = n
	for i := range r.slots {
		r.slots[i].used = false
	}
	return nil
}

// Stats returns the counters.
func (r *Reassembler) Stats() ReassemblerStats { return r.stats }

// Pending returns how many updates are being reassembled: some of their
// fragments came, not all.
func (r *Reassembler) Pending() int {
	n := 0
	for i := range r.slots {
		if r.slots[i].used {
			n++
		}
	}
	return n
}

// Reset discards every in-flight update and the counter history; statistics and
// the expected payload size are kept.
func (r *Reassembler) Reset() {
	for i := range r.slots {
		r.slots[i].used = false
	}
	r.doneN, r.doneNext = 0, 0
	r.hasNewest = false
}

// resync forgets the counter history, and the in-flight updates (counted
// as evicted), for a counter implausibly far behind the newest: a restarted
// sequence, or a stray datagram whose newer counter blocked the sequence.
func (r *Reassembler) resync() {
	for i := range r.slots {
		if r.slots[i].used {
			r.stats.Evicted++
		}
	}
	r.Reset()
	r.stats.Resyncs++
}

func (r *Reassembler) drop(d DropReason) ([]byte, uint32, error) {
	r.stats.Drops[d]++
	return nil, 0, d
}

// AddDatagram parses a whole datagram with ParseHeader and passes it to Add. A header
// that fails to parse is counted as DropMalformed and its HeaderError returned.
func (r *Reassembler) AddDatagram(d []byte) (payload []byte, counter uint32, err error) {
	h, n, err := ParseHeader(d)
	if err != nil {
		r.stats.Drops[DropMalformed]++
		return nil, 0, err
	}
	return r.Add(h, d[n:])
}

// Add takes one fragment: its parsed header and the payload bytes after it. When
// the fragment completes an update it returns the whole payload and the update's
// counter; otherwise payload is nil and err is nil (fragment kept, counter set) or
// a DropReason (refused and counted). The returned payload aliases either frag (single-fragment updates)
// or the Reassembler's memory: it is valid until the next call to Add, AddDatagram
// or Reset, and until the caller reuses frag.
func (r *Reassembler) Add(h Header, frag []byte) (payload []byte, counter uint32, err error) {
	if h.Type != r.typ {
		return r.drop(DropWrongType)
	}
	chunk, d := r.fragmentChunk(h, len(frag))
	if d != 0 {
		return r.drop(d)
	}
	c := h.Counter
	if back := int32(r.newest - c); r.hasNewest && back > r.maxAge {
		if back <= max(r.maxAge, ReorderWindow) {
			return r.drop(DropStale)
		}
		r.resync()
	}
	if r.completed(c) {
		return r.drop(DropDuplicate)
	}
	total, idx := int(h.TotalFragments), int(h.FragmentIdx)
	if total == 1 {
		r.advance(c)
		r.finish(c)
		return frag, c, nil
	}
	s := r.slotFor(c, total)
	if s == nil {
		return r.drop(DropStale)
	}
	if chunk, d = s.accepts(total, idx, len(frag), chunk, r.max); d != 0 {
		return r.drop(d)
	}
	s.place(idx, frag, chunk)
	r.advance(c)
	if s.got < total {
		return nil, c, nil
	}
	s.used = false
	r.finish(c)
	return s.buf[:s.size:s.size], c, nil
}

// fragmentChunk checks what one fragment of n bytes says on its own, before
// it may claim a slot: its header fields, the limits, and the chunk size
// it implies (with the configured Chunk and the expected payload size),
// which it returns (0 when it implies none). A refused fragment returns
// the reason.
func (r *Reassembler) fragmentChunk(h Header, n int) (chunk int, d DropReason) {
	total, idx := int(h.TotalFragments), int(h.FragmentIdx)
	switch {
	case total == 0 || idx >= total || uint64(n) != uint64(h.PayloadBytes), total > 1 && n == 0:
		return 0, DropMalformed
	case n > r.max || total > r.maxFrags:
		return 0, DropTooLarge
	case r.chunk > 0 && n > r.chunk:
		return 0, DropInconsistent
	}
	last := idx == total-1
	if !last {
		chunk = n
		if u64(total-1)*u64(n) >= u64(r.max) {
			return 0, DropTooLarge
		}
	}
	if r.expect > 0 {
		if chunk, d = expectedChunk(r.expect, total, n, last, chunk); d != 0 {
			return 0, d
		}
	}
	if r.chunk > 0 && total > 1 {
		if chunk != 0 && chunk != r.chunk {
			return 0, DropInconsistent
		}
		chunk = r.chunk
	}
	switch {
	case chunk != 0 && last && !fitsLast(total, chunk, n, r.max):
		return 0, DropInconsistent
	case chunk == 0 && n > len(r.slots[0].stash):
		return 0, DropTooLarge
	}
	return chunk, 0
}

// expectedChunk checks fragment n bytes of an update of total fragments
// against the expected payload size expect, and returns the chunk size
// they imply together (chunk, as implied by the fragment alone, unless it
// is the last one).
func expectedChunk(expect, total, n int, last bool, chunk int) (int, DropReason) {
	switch {
	case total == 1:
		if n != expect {
			return 0, DropInconsistent
		}
	case !last:
		if u64(total-1)*u64(n) >= u64(expect) || u64(total)*u64(n) < u64(expect) {
			return 0, DropInconsistent
		}
	default:
		rest := expect - n
		if rest <= 0 || rest%(total-1) != 0 || n > rest/(total-1) {
			return 0, DropInconsistent
		}
		chunk = rest / (total - 1)
	}
	return chunk, 0
}

// fitsLast reports whether a last fragment of n bytes after total-1 chunks
// of chunk bytes makes an update of at most max bytes.
func fitsLast(total, chunk, n, max int) bool {
	return n <= chunk && u64(total-1)*u64(chunk)+u64(n) <= u64(max)
}

// slotFor returns the slot of the in-flight update c of total fragments,
// claiming one (and evicting the oldest update if needed) for a new
// counter; nil if c is older than every in-flight update.
func (r *Reassembler) slotFor(c uint32, total int) *reslot {
	if s := r.find(c); s != nil {
		return s
	}
	s := r.alloc(c)
	if s != nil {
		s.used, s.counter, s.total, s.chunk, s.got, s.stashed = true, c, total, 0, 0, false
		clear(s.bits[:(total+63)/64])
	}
	return s
}

// accepts checks fragment idx of total, n bytes, implying chunk (0: none),
// against what the slot already holds, and returns the update's chunk size
// as far as it is known.
func (s *reslot) accepts(total, idx, n, chunk, max int) (int, DropReason) {
	last := idx == total-1
	switch {
	case s.total != total:
		return 0, DropInconsistent
	case chunk != 0 && s.chunk != 0 && chunk != s.chunk:
		return 0, DropInconsistent
	}
	if chunk == 0 {
		chunk = s.chunk
	}
	if chunk != 0 && (last && !fitsLast(s.total, chunk, n, max) || s.stashed && !fitsLast(s.total, chunk, s.stashLen, max)) {
		return 0, DropInconsistent
	}
	if s.bits[idx/64]&(1<<(idx%64)) != 0 {
		return 0, DropDuplicate
	}
	return chunk, 0
}

// place stores fragment idx: at its offset once the chunk size is known,
// aside while it is not (only the last fragment can arrive then), and moves
// a stashed last fragment into place when the chunk size becomes known.
func (s *reslot) place(idx int, frag []byte, chunk int) {
	s.bits[idx/64] |= 1 << (idx % 64)
	s.got++
	switch {
	case chunk == 0:
		s.stashLen = copy(s.stash, frag)
		s.stashed = true
	default:
		copy(s.buf[idx*chunk:], frag)
		if idx == s.total-1 {
			s.size = idx*chunk + len(frag)
		}
	}
	if s.chunk == 0 && chunk != 0 {
		s.chunk = chunk
		if s.stashed {
			off := (s.total - 1) * chunk
			copy(s.buf[off:], s.stash[:s.stashLen])
			s.size = off + s.stashLen
			s.stashed = false
		}
	}
}

// advance records c as seen and evicts updates that became too old.
func (r *Reassembler) advance(c uint32) {
	if !r.hasNewest || int32(c-r.newest) > 0 {
		r.newest, r.hasNewest = c, true
	}
	for i := range r.slots {
		s := &r.slots[i]
		if s.used && int32(r.newest-s.counter) > r.maxAge {
			s.used = false
			r.stats.Evicted++
		}
	}
}

func (r *Reassembler) finish(c uint32) {
	r.stats.Completed++
	r.done[r.doneNext] = c
	r.doneNext = (r.doneNext + 1) % len(r.done)
	r.doneN = min(r.doneN+1, len(r.done))
}

func (r *Reassembler) completed(c uint32) bool {
	for _, d := range r.done[:r.doneN] {
		if d == c {
			return true
		}
	}
	return false
}

func (r *Reassembler) find(c uint32) *reslot {
	for i := range r.slots {
		if s := &r.slots[i]; s.used && s.counter == c {
			return s
		}
	}
	return nil
}

// alloc returns a free slot, or evicts the oldest in-flight update if it is older
// than c; nil if c is older than every in-flight update.
func (r *Reassembler) alloc(c uint32) *reslot {
	var oldest *reslot
	for i := range r.slots {
		s := &r.slots[i]
		if !s.used {
			return s
		}
		if oldest == nil || int32(oldest.counter-s.counter) > 0 {
			oldest = s
		}
	}
	if int32(c-oldest.counter) <= 0 {
		return nil
	}
	oldest.used = false
	r.stats.Evicted++
	return oldest
}

// u64 widens sizes so products of a fragment count and a size cannot overflow int
// on 32-bit platforms.
func u64(n int) uint64 { return uint64(n) }
