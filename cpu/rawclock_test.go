package cpu

import (
	"testing"
	"time"

	"streamerd/internal/testenv"
)

func TestRawClockTracksMonotonicRaw(t *testing.T) {
	c := NewRawClock()
	time.Sleep(50 * time.Millisecond)
	c.Calibrate()
	for i := 0; i < 5; i++ {
		time.Sleep(20 * time.Millisecond)
		a := MonotonicRawNanos()
		got := c.Now()
		b := MonotonicRawNanos()
		// got must lie between a and b, give or take what a loaded machine
		// does between the calls and the fit's error.
		const slack = 200 * time.Microsecond
		if got+uint64(slack) < a || got > b+uint64(slack) {
			t.Errorf("Now %d outside [%d, %d] by more than %v", got, a, b, slack)
		}
	}
}

func TestRawClockIsMonotonic(t *testing.T) {
	c := NewRawClock()
	prev := c.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			c.Calibrate()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	backwards := 0
	for {
		select {
		case <-done:
			if backwards > 0 {
				t.Logf("%d small steps back across recalibrations", backwards)
			}
			return
		default:
		}
		now := c.Now()
		if now+uint64(50*time.Microsecond) < prev {
			t.Fatalf("went back %d ns", prev-now)
		}
		if now < prev {
			backwards++
		}
		prev = now
	}
}

var sinkU64 uint64

func TestRawClockNowNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	c := NewRawClock()
	if n := testing.AllocsPerRun(1000, func() { sinkU64 = c.Now() }); n != 0 {
		t.Errorf("%v allocs", n)
	}
	if n := testing.AllocsPerRun(100, c.Calibrate); n != 0 {
		t.Errorf("Calibrate: %v allocs", n)
	}
}

func BenchmarkRawClockNow(b *testing.B) {
	c := NewRawClock()
	b.ReportAllocs()
	for b.Loop() {
		sinkU64 = c.Now()
	}
}
