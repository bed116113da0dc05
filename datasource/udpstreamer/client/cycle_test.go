package client

import (
	"math/rand/v2"
	"testing"
)

// TestCycleClockCountsRemovedCycles: cycles of a 1 ms grid, each stamped
// a little late (exponentially, 50 µs on average) and one in fifty up to
// 0.8 ms late; some are lost (the counter shows them), some skipped (only
// the spacing shows them). Once it has learnt the period the clock counts
// the skipped ones exactly, and never one more.
func TestCycleClockCountsRemovedCycles(t *testing.T) {
	const p = 1_000_000 // ns
	r := rand.New(rand.NewPCG(3, 4))
	var k cycleClock
	var wantSkipped, gotSkipped uint64
	lost := uint32(0)
	for cycle := range uint64(200_000) {
		switch x := r.IntN(100); {
		case cycle <= minPeriodSamples: // learning: every cycle arrives
		case x < 3:
			wantSkipped++
			continue
		case x < 5:
			lost++
			continue
		}
		late := min(uint64(r.ExpFloat64()*p/20), 8*p/10)
		if r.IntN(50) == 0 {
			late = uint64(r.IntN(8 * p / 10))
		}
		gotSkipped += uint64(k.step(1e12+cycle*p+late, lost))
		lost = 0
	}
	if gotSkipped != wantSkipped {
		t.Errorf("skipped %d, want %d", gotSkipped, wantSkipped)
	}
	if k.period < p-p/1000 || k.period > p+p/1000 || !k.refined {
		t.Errorf("period %d ns (refined %v), want %d within 0.1 %%", k.period, k.refined, p)
	}
}

func TestCycleClockSteps(t *testing.T) {
	const p = 1000
	var k cycleClock
	hrt := uint64(5000)
	for range minPeriodSamples + 1 {
		hrt += p
		if n := k.step(hrt, 0); n != 0 {
			t.Fatalf("skipped %d while learning", n)
		}
	}
	for _, s := range []struct {
		at      uint64 // after the previous update
		lost    uint32
		skipped uint32
	}{
		{p, 0, 0},
		{3 * p, 0, 2},
		{4 * p, 2, 1},
		{1600, 0, 0}, // late by 0.6 period
		{400, 0, 0},  // on time again
		{p + 850, 0, 0},
		{p - 850, 0, 0},
		{2*p + 300, 0, 1},
		{1, 0, 0},                           // a catch-up cycle right behind
		{uint64(maxSkipSlots+10) * p, 0, 0}, // a jump of the clock: the grid restarts
		{p, 0, 0},
		{2 * p, 0, 1},
	} {
		hrt += s.at
		if n := k.step(hrt, s.lost); n != s.skipped {
			t.Fatalf("step +%d lost %d: skipped %d, want %d", s.at, s.lost, n, s.skipped)
		}
	}
	if k.step(hrt, 0) != 0 || k.step(hrt-5, 0) != 0 {
		t.Error("a repeated or earlier timestamp counted skips")
	}
	k.reset()
	if k.step(hrt+50*p, 0) != 0 || k.period != 0 {
		t.Errorf("after reset: skips counted, or period %d kept", k.period)
	}
}

// TestSkippedFromTimestamps: the server stamps its updates 1 ms apart and
// skips cycles without a counter gap; the client reports them in
// Update.Skipped, Stats.Skipped and Stats.Period.
func TestSkippedFromTimestamps(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	const p = 1_000_000
	var u Update
	hrt, counter := uint64(1e12), uint32(0)
	step := func(cycles uint64, counterStep uint32, lost, skipped uint32) {
		t.Helper()
		hrt += cycles * p
		counter += counterStep
		send(t, srv, counter, payload(t, sigs, hrt, nil))
		expect(t, c, &u, counter, lost)
		if u.Skipped != skipped {
			t.Fatalf("counter %d: Skipped %d, want %d", counter, u.Skipped, skipped)
		}
	}
	step(0, 0, 0, 0)
	for range 20 {
		step(1, 1, 0, 0)
	}
	step(3, 1, 0, 2) // two cycles replaced on the server
	step(4, 2, 1, 2) // one update lost on the way, two cycles replaced
	step(1, 1, 0, 0)
	if st := c.Stats(); st.Skipped != 4 || st.Lost != 1 || st.Period != p {
		t.Errorf("Skipped %d Lost %d Period %v", st.Skipped, st.Lost, st.Period)
	}
}
