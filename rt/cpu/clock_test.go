package cpu

import (
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestMonotonicClocks(t *testing.T) {
	a, m := MonotonicRawNanos(), MonotonicNanos()
	time.Sleep(2 * time.Millisecond)
	b, n := MonotonicRawNanos(), MonotonicNanos()
	if b <= a || n <= m {
		t.Fatalf("clocks did not advance: raw %d->%d mono %d->%d", a, b, m, n)
	}
	if d := b - a; d < uint64(time.Millisecond) || d > uint64(10*time.Second) {
		t.Errorf("raw clock advanced %d ns over a 2 ms sleep", d)
	}
}

func TestSleepUntil(t *testing.T) {
	target := MonotonicNanos() + int64(2*time.Millisecond)
	if err := SleepUntil(target); err != nil {
		t.Fatal(err)
	}
	if now := MonotonicNanos(); now < target {
		t.Errorf("woke %d ns before the deadline", target-now)
	}
	if err := SleepUntil(MonotonicNanos() - int64(time.Second)); err != nil {
		t.Errorf("deadline in the past: %v", err)
	}
}

var sinkU uint64

func TestClockNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	if n := testing.AllocsPerRun(1000, func() { sinkU += MonotonicRawNanos() + uint64(MonotonicNanos()) }); n != 0 {
		t.Fatalf("clocks allocate %v times", n)
	}
	var m Mask
	if n := testing.AllocsPerRun(100, func() { m, _ = currentThreadAffinity() }); n != 0 {
		t.Fatalf("currentThreadAffinity allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = SleepUntil(MonotonicNanos() + 1000) }); n != 0 {
		t.Fatalf("SleepUntil allocates %v times", n)
	}
	sinkU += uint64(m)
}

func TestNowFollowsMonotonicNanos(t *testing.T) {
	for range 3 {
		a := MonotonicNanos()
		n := Now()
		b := MonotonicNanos()
		// Now may sit a little outside the bracket (the anchor's error),
		// never far.
		if n < a-int64(time.Millisecond) || n > b+int64(time.Millisecond) {
			t.Fatalf("Now %d outside [%d, %d] by more than 1 ms", n, a, b)
		}
	}
	if n := testing.AllocsPerRun(100, func() { sinkU += uint64(Now()) }); n != 0 && !testenv.RaceEnabled {
		t.Fatalf("Now allocates %v times", n)
	}
}
