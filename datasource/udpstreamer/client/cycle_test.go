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
		case cycle <= 2*minPeriodSamples: // learning: every cycle arrives
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
	for range 2*minPeriodSamples + 1 {
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
// Update.Skipped, Stats.Skipped and Stats.Period. The session begins with
// a burst of updates stamped 1 µs apart (a server catching up after a
// stall, stamping when it sends), which counts nothing.
func TestSkippedFromTimestamps(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	const p = 1_000_000
	var u Update
	hrt, counter := uint64(1e12), uint32(0)
	step := func(dt uint64, counterStep uint32, lost, skipped uint32) {
		t.Helper()
		hrt += dt
		counter += counterStep
		send(t, srv, counter, payload(t, sigs, hrt, nil))
		expect(t, c, &u, counter, lost)
		if u.Skipped != skipped {
			t.Fatalf("counter %d: Skipped %d, want %d", counter, u.Skipped, skipped)
		}
	}
	step(0, 0, 0, 0)
	for range 12 {
		step(1000, 1, 0, 0)
	}
	for range 30 {
		step(p, 1, 0, 0)
	}
	step(3*p, 1, 0, 2) // two cycles replaced on the server
	step(4*p, 2, 1, 2) // one update lost on the way, two cycles replaced
	step(p, 1, 0, 0)
	if st := c.Stats(); st.Skipped != 4 || st.Lost != 1 || st.Period != p {
		t.Errorf("Skipped %d Lost %d Period %v", st.Skipped, st.Lost, st.Period)
	}
}

// steps feeds k n updates spaced by d and returns the skips it counted.
func steps(k *cycleClock, hrt *uint64, n int, d uint64) (skipped uint64) {
	for range n {
		*hrt += d
		skipped += uint64(k.step(*hrt, 0))
	}
	return skipped
}

// TestCycleClockBurstAtStart: a session that begins during a catch-up
// burst, updates stamped 1 µs apart, then a steady 1 kHz with nothing
// skipped. A burst shorter than two runs of minPeriodSamples spacings
// never sets the period; a longer one sets it until the first update
// after it, a thousand of its periods later, has it learnt again. No
// skip is counted.
func TestCycleClockBurstAtStart(t *testing.T) {
	const p = 1_000_000
	for _, c := range []struct {
		burst   int
		maxSkip uint64 // skips the wrong period may count before it is learnt again
	}{
		{burst: 4}, {burst: 12}, {burst: minPeriodSamples + 4},
		{burst: 2 * minPeriodSamples}, {burst: 22}, {burst: 300}, {burst: 3000},
	} {
		var k cycleClock
		hrt := uint64(1e12)
		skipped := steps(&k, &hrt, c.burst, 1000)
		skipped += steps(&k, &hrt, 4*minPeriodSamples, p)
		if skipped > c.maxSkip {
			t.Errorf("burst of %d: %d cycles skipped while learning, want at most %d", c.burst, skipped, c.maxSkip)
		}
		if late := steps(&k, &hrt, 3000, p); late != 0 || k.known() != p {
			t.Errorf("burst of %d: then %d skipped in 3000 updates, period %d ns (want %d)", c.burst, late, k.known(), p)
		}
	}
}

// TestCycleClockKeepsMeasuredPeriod: once measured on the grid, the period
// is kept: a server that sends one cycle in four, or skips 0 to 9 cycles
// at random, has every skip counted, and a burst in mid-session counts
// none.
func TestCycleClockKeepsMeasuredPeriod(t *testing.T) {
	const p = 1_000_000
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name string
		skip func() uint64 // cycles skipped before the next update
	}{
		{"one in four", func() uint64 { return 3 }},
		{"0 to 9 at random", func() uint64 { return uint64(r.IntN(10)) }},
	} {
		var k cycleClock
		hrt := uint64(1e12)
		steps(&k, &hrt, 2000, p)
		if !k.refined || k.known() != p {
			t.Fatalf("%s: period %d ns refined %v", c.name, k.known(), k.refined)
		}
		var want, got uint64
		cycle := (hrt - 1e12) / p
		for range 3000 {
			n := c.skip()
			want += n
			cycle += n + 1
			got += uint64(k.step(1e12+cycle*p+uint64(r.IntN(p/5)), 0))
		}
		if got != want || k.known() < p-p/100 || k.known() > p+p/100 {
			t.Errorf("%s: counted %d of %d skipped cycles, period %d ns", c.name, got, want, k.known())
		}
	}
	var k cycleClock
	hrt := uint64(1e12)
	steps(&k, &hrt, 2000, p)
	skipped := steps(&k, &hrt, 50, 1000) + steps(&k, &hrt, 100, p)
	if skipped != 0 || k.known() != p {
		t.Errorf("after a burst of 50: %d skipped, period %d ns", skipped, k.known())
	}
}

// TestCycleClockLearnsAgainBeforeMeasured: a session that begins while the
// server sends one cycle in four learns four periods; when it sends every
// cycle again, before the period is measured on the grid, the updates
// come faster than that and the period is learnt again.
func TestCycleClockLearnsAgainBeforeMeasured(t *testing.T) {
	const p = 1_000_000
	var k cycleClock
	hrt := uint64(1e12)
	steps(&k, &hrt, 2*minPeriodSamples+1, 4*p)
	if k.known() != 4*p {
		t.Fatalf("period %d ns, want %d", k.known(), 4*p)
	}
	steps(&k, &hrt, 3*minPeriodSamples, p)
	if late := steps(&k, &hrt, 3000, p); late != 0 || k.known() != p {
		t.Errorf("then %d skipped, period %d ns (want %d)", late, k.known(), p)
	}
}
