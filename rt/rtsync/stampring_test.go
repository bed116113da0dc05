package rtsync

import (
	"sync"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestStampRingDrain(t *testing.T) {
	var r StampRing // the zero value works
	dst := make([]int64, 3)
	if n, lost := r.Drain(dst); n != 0 || lost != 0 {
		t.Fatalf("empty ring: %d, %d lost", n, lost)
	}
	for v := int64(1); v <= 5; v++ {
		r.Stamp(v)
	}
	if n, lost := r.Drain(dst); n != 3 || lost != 0 || dst[0] != 1 || dst[2] != 3 {
		t.Fatalf("first drain: %d, %d lost, %v", n, lost, dst)
	}
	if n, lost := r.Drain(dst); n != 2 || lost != 0 || dst[0] != 4 || dst[1] != 5 {
		t.Fatalf("second drain: %d, %d lost, %v", n, lost, dst[:2])
	}
	// StampRows+20 more: the oldest 20 are lost, and the oldest left
	// shares its slot with the next stamp, so it is dropped too.
	for v := int64(6); v < 6+StampRows+20; v++ {
		r.Stamp(v)
	}
	big := make([]int64, 2*StampRows)
	n, lost := r.Drain(big)
	if n != StampRows-1 || lost != 21 || big[0] != 27 || big[n-1] != 5+StampRows+20 {
		t.Fatalf("overrun: %d, %d lost, first %d last %d", n, lost, big[0], big[n-1])
	}
	if r.stamped() != 5+StampRows+20 {
		t.Fatalf("stamped %d", r.stamped())
	}
}

// TestStampRingConcurrent: stamps drained while the producer writes come
// out in order, and drained + lost = stamped.
func TestStampRingConcurrent(t *testing.T) {
	const total = 200000
	var r StampRing
	var wg sync.WaitGroup
	wg.Go(func() {
		for v := int64(1); v <= total; v++ {
			r.Stamp(v)
		}
	})
	dst := make([]int64, 17)
	var got, lost uint64
	prev := int64(0)
	for got+lost < total {
		n, l := r.Drain(dst)
		lost += l
		for _, v := range dst[:n] {
			if v <= prev {
				t.Fatalf("stamp %d after %d", v, prev)
			}
			prev = v
		}
		got += uint64(n)
	}
	wg.Wait()
	if got+lost != total {
		t.Fatalf("drained %d + lost %d != %d", got, lost, total)
	}
}

func TestStampRingNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	var r StampRing
	dst := make([]int64, 8)
	if n := testing.AllocsPerRun(1000, func() { r.Stamp(1); r.Drain(dst) }); n != 0 {
		t.Fatalf("Stamp and Drain allocate %v times", n)
	}
}
