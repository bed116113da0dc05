package rd100s

import (
	"math"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	client "github.com/streamerd/streamerd/internal/rd100slink"
	"github.com/streamerd/streamerd/internal/testenv"
)

// stepEncoder opens an encoder without its network thread, so a test can
// drive the emitter itself with em.run at instants it chooses (the emitter
// still sends real datagrams). It sends to r, or to a socket nobody reads.
func stepEncoder(t testing.TB, cfg Config, r *rx) (*Encoder, *emitter) {
	t.Helper()
	if r != nil {
		cfg.DestPort = r.port()
	} else {
		sink := testenv.Loopback(t)
		cfg.DestPort = sink.LocalAddr().(*net.UDPAddr).Port
	}
	e, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	put(e, 12.5, 45, 1, 2)
	e.Synchronise()
	if err := e.openStep(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, e.em
}

// step runs the emitter at its next instant.
func (em *emitter) step() { em.run(em.next()) }

// TestGridAndJitter drives the emitter with the clock it asks for: the
// nominal grid never drifts, jittered instants stay within ±J of it, and
// each packet's t_us is its real (jittered) instant.
func TestGridAndJitter(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 1000})
	e, em := stepEncoder(t, testConfig(1000), r)
	const J = 400 * time.Microsecond
	if err := e.apply(degradations{Jitter: J}, allKinds, "operator", e.origin); err != nil {
		t.Fatal(err)
	}
	const n = 500
	targets := make([]int64, n+1)
	targets[0] = em.target
	var pos, neg int
	var sumAbs float64
	for i := 0; i < n; i++ {
		em.step()
		nom := em.nominal(em.k)
		if nom-e.origin != int64(em.k)*int64(time.Millisecond) {
			t.Fatalf("tick %d: nominal instant %d ns after the origin", em.k, nom-e.origin)
		}
		dev := em.target - nom
		if dev < -int64(J) || dev > int64(J) {
			t.Fatalf("tick %d: %d ns off the grid, beyond ±%v", em.k, dev, J)
		}
		switch {
		case dev > 0:
			pos++
		case dev < 0:
			neg++
		}
		sumAbs += math.Abs(float64(dev))
		targets[em.k] = em.target
	}
	if mean := sumAbs / n; pos < n/3 || neg < n/3 || mean < float64(J)/4 || mean > float64(J)*3/4 {
		t.Errorf("deviations: %d late, %d early, mean |dev| %.0f ns", pos, neg, mean)
	}
	if e.m.jittered.Get() != n || e.m.ticksMissed.Get() != 0 { // tick 0 itself was on the grid
		t.Errorf("jittered %d, missed %d", e.m.jittered.Get(), e.m.ticksMissed.Get())
	}
	waitFor(t, "all packets", func() bool { return r.count() == n })
	for _, p := range r.packets() {
		if want := uint64(targets[p.Seq]-e.origin) / 1000; p.TUs != want {
			t.Fatalf("seq %d: t_us %d, sent at %d", p.Seq, p.TUs, want)
		}
	}
}

// TestMissedTicks: waking more than a period late skips to the newest tick
// due; skipped ticks consume no seq.
func TestMissedTicks(t *testing.T) {
	e, em := stepEncoder(t, testConfig(1000), nil)
	for range 10 {
		em.step()
	}
	k, seq := em.k, em.seq
	em.run(em.nominal(k) + 5*int64(time.Millisecond) + int64(time.Millisecond)/2)
	if em.k != k+6 || em.seq != seq+1 || e.m.ticksMissed.Get() != 5 {
		t.Errorf("after a 5.5-period stall: k %d→%d, seq %d→%d, missed %d", k, em.k, seq, em.seq, e.m.ticksMissed.Get())
	}
	// A little late is not a miss.
	em.run(em.nominal(em.k) + int64(time.Millisecond)*9/10)
	if e.m.ticksMissed.Get() != 5 || em.k != k+7 {
		t.Errorf("0.9 period late: missed %d, k %d", e.m.ticksMissed.Get(), em.k)
	}
}

// TestReorderOverflow fills the reorder window: the packet due first leaves
// at once and nothing is lost.
func TestReorderOverflow(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 10000})
	cfg := testConfig(10000)
	e, em := stepEncoder(t, cfg, r)
	if err := e.apply(degradations{ReorderWindow: 10 * time.Second}, allKinds, "operator", e.origin); err != nil {
		t.Fatal(err)
	}
	for range reorderCapacity + 200 {
		em.step()
	}
	if e.m.reorderOvf.Get() < 190 || len(em.heap) != reorderCapacity {
		t.Errorf("overflow %d, held %d", e.m.reorderOvf.Get(), len(em.heap))
	}
	sent := e.m.sent.Get()
	waitFor(t, "packets", func() bool { return uint64(r.count()) == sent })
}

func allOn(burstAndSilence bool) degradations {
	return degradations{
		LossProbability: 0.1, LossEveryN: 7, DuplicateProbability: 0.2,
		ReorderWindow: 5 * time.Millisecond, Jitter: 400 * time.Microsecond,
		Freeze: true, InvalidAz: true, InvalidEl: true, SeqJump: 100,
		BurstLoss: map[bool]time.Duration{true: time.Hour}[burstAndSilence], Silence: burstAndSilence,
	}
}

// asConfig returns d as Config.Degradations writes it.
func asConfig(d degradations) map[string]string {
	m := map[string]string{}
	for k, key := range keys {
		if d.active(kind(k)) {
			m[key], _ = d.get(key)
		}
	}
	return m
}

var sinkSeq uint32

// TestEmitterNoAllocs: a tick allocates nothing, with every degradation
// active (the reorder window holding packets, duplicates, loss, jitter,
// freeze), and with burst and silence on top.
func TestEmitterNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	for _, bs := range []bool{false, true} {
		e, em := stepEncoder(t, testConfig(1000), nil)
		if err := e.apply(allOn(bs), allKinds, "operator", e.origin); err != nil {
			t.Fatal(err)
		}
		for range 2000 { // fill the reorder window; the seq jump happens here
			em.step()
		}
		if n := testing.AllocsPerRun(2000, em.step); n != 0 {
			t.Errorf("burst and silence %v: %v allocations per tick", bs, n)
		}
		sinkSeq = em.seq
		if !bs && (e.m.sent.Get() == 0 || e.m.duplicated.Get() == 0 || e.m.reordered.Get() == 0 || e.m.droppedLoss.Get() == 0 || len(em.heap) == 0 || e.m.frozen.Get() == 0) {
			t.Errorf("not every degradation acted: sent %d dup %d reordered %d lost %d held %d",
				e.m.sent.Get(), e.m.duplicated.Get(), e.m.reordered.Get(), e.m.droppedLoss.Get(), len(em.heap))
		}
		if bs && (e.m.silenced.Get() == 0 || e.m.sent.Get() != 0) {
			t.Errorf("silence: sent %d, silenced %d", e.m.sent.Get(), e.m.silenced.Get())
		}
	}
	e, _ := stepEncoder(t, testConfig(1000), nil)
	if n := testing.AllocsPerRun(1000, func() { e.Synchronise() }); n != 0 {
		t.Errorf("Synchronise: %v allocations", n)
	}
}

// TestSteadyStateNoAllocs runs the real network thread at 1 kHz with every
// degradation but burst and silence on, the RT side calling Synchronise,
// and checks the process allocates (almost) nothing over a second.
func TestSteadyStateNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	sink := testenv.Loopback(t)
	cfg := testConfig(1000)
	cfg.DestPort = sink.LocalAddr().(*net.UDPAddr).Port
	cfg.Degradations = asConfig(allOn(false))
	e, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	e.AllocateMemory()
	if err := e.PrepareNextState(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cycle := func(d time.Duration) {
		for t0 := time.Now(); time.Since(t0) < d; {
			put(e, float64(time.Since(t0))/1e6, 1, 0, 0)
			e.Synchronise()
			for t1 := time.Now(); time.Since(t1) < 250*time.Microsecond; {
			}
		}
	}
	cycle(300 * time.Millisecond) // warm-up
	ticks := e.m.ticks.Get()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cycle(time.Second)
	runtime.ReadMemStats(&m1)
	ticks = e.m.ticks.Get() - ticks
	if d := m1.Mallocs - m0.Mallocs; d > 20 {
		t.Errorf("%d allocations over %d ticks", d, ticks)
	}
	if ticks < 300 || e.m.reordered.Get() == 0 {
		t.Errorf("only %d ticks, %d reordered", ticks, e.m.reordered.Get())
	}
}

func TestRngReproducible(t *testing.T) {
	a, b := newRng(7, kLossProbability), newRng(7, kLossProbability)
	c := newRng(7, kDuplicate)
	same := 0
	for range 1000 {
		x, y, z := a.next(), b.next(), c.next()
		if x != y {
			t.Fatal("same seed, different draws")
		}
		if x == z {
			same++
		}
	}
	if same > 0 {
		t.Error("streams of two degradations coincide")
	}
	s := a
	if a.chance(0) || !a.chance(1) || a != s {
		t.Error("chance(0) and chance(1) must not draw")
	}
	hits := 0
	for range 100000 {
		if v := a.upTo(10); v < 0 || v > 10 {
			t.Fatalf("upTo(10) = %d", v)
		}
		if a.chance(0.25) {
			hits++
		}
	}
	if hits < 24000 || hits > 26000 {
		t.Errorf("chance(0.25): %d of 100000", hits)
	}
}

// BenchmarkCadence runs the real network thread and measures how late each
// send instant is against its nominal deadline (the emitter's own wake-up
// time minus the grid instant) and, from the t_us of the packets received,
// how far each period lies from nominal, beside the ±2 ms budget of
// section 1. One iteration is one packet; at least 1.5 s of packets is
// measured.
func BenchmarkCadence(b *testing.B) {
	for _, rate := range []float64{100, 1000} {
		b.Run(map[float64]string{100: "100Hz", 1000: "1kHz"}[rate], func(b *testing.B) {
			b.ReportAllocs()
			n := max(b.N, int(rate)*3/2)
			conn := testenv.Loopback(b)
			defer conn.Close() // b.Run calls this once per round
			conn.SetReadBuffer(4 << 20)
			cfg := testConfig(rate)
			cfg.DestPort = conn.LocalAddr().(*net.UDPAddr).Port
			e, err := New(cfg, metrics.NewSet(), discard())
			if err != nil {
				b.Fatal(err)
			}
			e.AllocateMemory()
			e.Synchronise()
			tus := make([]int64, 0, n)
			seqs := make([]uint32, 0, n)
			buf := make([]byte, 64)
			if err := e.openStep(); err != nil {
				b.Fatal(err)
			}
			e.em.lateness = make([]int64, 0, n)
			if err := e.startThread(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for len(tus) < n {
				conn.SetReadDeadline(time.Now().Add(5 * time.Second))
				k, _, err := conn.ReadFromUDPAddrPort(buf)
				if err != nil {
					b.Fatal(err)
				}
				p, err := wire.ParsePacket(buf[:k])
				if err != nil {
					b.Fatal(err)
				}
				tus = append(tus, int64(p.TUs))
				seqs = append(seqs, p.Seq)
			}
			b.StopTimer()
			e.Close()
			T := 1e6 / rate
			var late, period []float64
			beyond := 0
			for _, l := range e.em.lateness {
				us := float64(l) / 1e3
				late = append(late, us)
				if us > 2000 {
					beyond++
				}
			}
			for i, t := range tus {
				if i > 0 && seqs[i] == seqs[i-1]+1 {
					period = append(period, math.Abs(float64(t-tus[i-1])-T))
				}
			}
			g, p := quantiles(late), quantiles(period)
			b.ReportMetric(g[0], "late-p50-µs")
			b.ReportMetric(g[1], "late-p99-µs")
			b.ReportMetric(g[2], "late-max-µs")
			b.ReportMetric(p[1], "period-dev-p99-µs")
			b.ReportMetric(p[2], "period-dev-max-µs")
			b.ReportMetric(2000, "budget-µs")
			b.ReportMetric(float64(beyond), "beyond-budget")
			b.ReportMetric(float64(e.m.ticksMissed.Get()), "ticks-missed")
		})
	}
}

// quantiles returns p50, p99 and max of v.
func quantiles(v []float64) [3]float64 {
	if len(v) == 0 {
		return [3]float64{}
	}
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ { // insertion sort: a few thousand values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	q := func(f float64) float64 { return s[min(len(s)-1, int(math.Ceil(f*float64(len(s))))-1)] }
	return [3]float64{q(0.5), q(0.99), s[len(s)-1]}
}

func TestDegreesToMdeg(t *testing.T) {
	cases := []struct {
		in   float64
		want int64
	}{
		{0, 0}, {1, 1000}, {-1, -1000}, {0.0004, 0}, {0.0006, 1}, {-0.0006, -1},
		{0.0005, 1}, {-0.0005, -1}, // halves away from zero
		{359.9994, 359999}, {359.9996, 360000}, {-90, -90000}, {12.3456, 12346},
		{math.NaN(), 0}, {math.Inf(1), math.MaxInt64}, {math.Inf(-1), math.MinInt64},
		{1e300, math.MaxInt64}, {-1e300, math.MinInt64},
	}
	for _, c := range cases {
		if got := degreesToMdeg(c.in); got != c.want {
			t.Errorf("degreesToMdeg(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	if wire.NormalizeAzimuthMdeg(degreesToMdeg(-0.001)) != 359999 {
		t.Error("-0.001 deg does not wrap to 359999")
	}
}
