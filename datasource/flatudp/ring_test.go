package flatudp

import (
	"encoding/binary"
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

func TestRingFullAndWrap(t *testing.T) {
	r := newRing(3, 5)
	if r.stride != cacheLine || len(r.buf) != 3*cacheLine {
		t.Fatalf("stride %d, buf %d", r.stride, len(r.buf))
	}
	cyc := func(v byte) []byte { return []byte{v, v, v, v, v} }
	for v := byte(0); v < 3; v++ {
		if !r.push(cyc(v)) {
			t.Fatalf("push %d refused", v)
		}
	}
	if r.push(cyc(9)) {
		t.Fatal("push into a full ring accepted")
	}
	if r.published() != 3 || r.depth() != 3 {
		t.Fatalf("published %d depth %d", r.published(), r.depth())
	}
	r.release(1) // cycle 0 back to the producer
	if !r.push(cyc(3)) {
		t.Fatal("push after release refused")
	}
	for seq := uint64(1); seq < 4; seq++ {
		if s := r.slot(seq); s[0] != byte(seq) || len(s) != 5 || cap(s) != 5 {
			t.Errorf("slot %d = %v (cap %d)", seq, s, cap(s))
		}
	}
	if r.push(cyc(9)) {
		t.Fatal("push into a full ring accepted after the wrap")
	}
}

func TestRingLayout(t *testing.T) {
	var r ring
	h, tl, p := unsafe.Offsetof(r.head), unsafe.Offsetof(r.tail), unsafe.Offsetof(r.prodHead)
	if tl-h < cacheLine || p-tl < cacheLine || h < cacheLine {
		t.Errorf("head at %d, tail at %d, producer fields at %d: closer than %d bytes", h, tl, p, cacheLine)
	}
}

// TestRingSPSC streams numbered cycles through a small ring between two
// goroutines; the race detector checks the hand-off.
func TestRingSPSC(t *testing.T) {
	const cycles = 20000
	r := newRing(4, 12)
	var wg sync.WaitGroup
	wg.Go(func() {
		src := make([]byte, 12)
		for i := uint64(0); i < cycles; {
			binary.LittleEndian.PutUint64(src, i)
			binary.LittleEndian.PutUint32(src[8:], uint32(i*3))
			if r.push(src) {
				i++
			} else {
				runtime.Gosched()
			}
		}
	})
	for seq := uint64(0); seq < cycles; {
		h := r.published()
		if h == seq {
			runtime.Gosched()
			continue
		}
		for ; seq < h; seq++ {
			s := r.slot(seq)
			if v, w := binary.LittleEndian.Uint64(s), binary.LittleEndian.Uint32(s[8:]); v != seq || w != uint32(seq*3) {
				t.Fatalf("cycle %d holds %d/%d", seq, v, w)
			}
			r.release(seq + 1)
		}
	}
	wg.Wait()
}
