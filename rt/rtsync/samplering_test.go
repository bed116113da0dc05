package rtsync

import (
	"math"
	"runtime"
	"sync"
	"testing"
)

func TestSampleRingDrain(t *testing.T) {
	r := NewSampleRing(5, 2) // 8 rows
	if int(r.rows) != 8 || r.width != 2 {
		t.Fatalf("len %d width %d", int(r.rows), r.width)
	}
	put := func(v int64) {
		row := r.Row()
		row[0].Store(v)
		row[1].Store(-v)
		r.Publish()
	}
	dst := make([]int64, 6) // three rows at a time
	if n, lost := r.Drain(dst); n != 0 || lost != 0 {
		t.Fatalf("empty ring: %d rows, %d lost", n, lost)
	}
	for v := int64(1); v <= 5; v++ {
		put(v)
	}
	n, lost := r.Drain(dst)
	if n != 3 || lost != 0 || dst[0] != 1 || dst[1] != -1 || dst[4] != 3 {
		t.Fatalf("first drain: %d rows, %d lost, %v", n, lost, dst)
	}
	n, lost = r.Drain(dst)
	if n != 2 || lost != 0 || dst[0] != 4 || dst[2] != 5 {
		t.Fatalf("second drain: %d rows, %d lost, %v", n, lost, dst[:4])
	}
	// Twenty rows into eight slots: the oldest twelve are lost, and the
	// oldest of the eight left shares its slot with the row the producer
	// writes next, which Drain cannot tell from a torn one: it is dropped
	// too.
	for v := int64(6); v <= 25; v++ {
		put(v)
	}
	big := make([]int64, 32)
	n, lost = r.Drain(big)
	if n != 7 || lost != 13 || big[0] != 19 || big[12] != 25 {
		t.Fatalf("overrun: %d rows, %d lost, %v", n, lost, big[:2*n])
	}
}

// TestSampleRingConcurrent streams rows through a small ring from one
// goroutine to another: every row drained is whole (its two samples
// agree) and in order, and drained + lost = published.
func TestSampleRingConcurrent(t *testing.T) {
	const total = 200000
	r := NewSampleRing(64, 2)
	var wg sync.WaitGroup
	wg.Go(func() {
		for v := int64(1); v <= total; v++ {
			row := r.Row()
			row[0].Store(v)
			row[1].Store(3 * v)
			r.Publish()
			if v%1000 == 0 {
				runtime.Gosched()
			}
		}
	})
	dst := make([]int64, 2*16)
	var got, lost uint64
	var prev int64
	for got+lost < total {
		n, l := r.Drain(dst)
		lost += l
		for i := range n {
			v, w := dst[2*i], dst[2*i+1]
			if w != 3*v || v <= prev {
				t.Fatalf("row %d: %d, %d after %d", got, v, w, prev)
			}
			prev = v
			got++
		}
		if n == 0 {
			runtime.Gosched()
		}
	}
	wg.Wait()
	if got+lost != total {
		t.Fatalf("drained %d + lost %d != %d", got, lost, total)
	}
	t.Logf("drained %d, lost %d", got, lost)
}

func TestSampleRingNoAllocs(t *testing.T) {
	r := NewSampleRing(16, 3)
	dst := make([]int64, 48)
	if n := testing.AllocsPerRun(1000, func() {
		row := r.Row()
		row[0].Store(1)
		r.Publish()
		r.Drain(dst)
	}); n != 0 {
		t.Errorf("%v allocs", n)
	}
}

// TestZeroSampleRing: a ring not made by NewSampleRing holds nothing and
// drains nothing, instead of dividing by its zero width.
func TestZeroSampleRing(t *testing.T) {
	var r SampleRing
	if len(r.Row()) != 0 {
		t.Errorf("Row of a zero ring: %d samples", len(r.Row()))
	}
	r.Publish()
	if rows, lost := r.Drain(make([]int64, 8)); rows != 0 || lost != 0 {
		t.Errorf("Drain of a zero ring: %d rows, %d lost", rows, lost)
	}
}

// TestSampleRingBounded: sizes beyond 2^24 samples are cut to fit, not a
// panic or a silent overflow to an empty ring.
func TestSampleRingBounded(t *testing.T) {
	for _, c := range [][2]int{{1 << 62, 1}, {1 << 40, 1 << 30}, {math.MaxInt, math.MaxInt}, {4, 1 << 30}} {
		r := NewSampleRing(c[0], c[1])
		if n := len(r.buf); n == 0 || n > maxSamples || len(r.Row()) != r.width || r.rows&(r.rows-1) != 0 {
			t.Errorf("NewSampleRing(%d, %d): %d samples, %d rows of %d", c[0], c[1], n, r.rows, r.width)
		}
	}
}
