package rd100s

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	client "github.com/streamerd/streamerd/internal/rd100slink"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestNominalStream checks a 100 Hz stream packet by packet against the
// layout of section 2, the seq wrap from FirstSeq, the conversions, and
// the cadence.
func TestNominalStream(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 100, StreamTimeout: time.Second})
	cfg := testConfig(100)
	cfg.FirstSeq = 0xFFFFFFF0
	e := startEnc(t, cfg, r)
	put(e, 359.9996, -95.5, 1.5, -2.25)
	e.Synchronise()
	run(t, e)

	waitFor(t, "first packets", func() bool { return r.count() >= 3 })
	conv := []struct {
		az, el         float64
		azRate, elRate float32
		wantAz, wantEl int32
		wantAzR, wantE int32
	}{
		{359.9996, -95.5, 1.5, -2.25, 0, -95500, 1500, -2250}, // rounds to 360000: wraps to 0
		{359.9994, 120, 0, 0, 359999, 120000, 0, 0},           // elevation beyond +90° passes through
		{-0.5, -90.0006, -10, 10, 359500, -90001, -10000, 10000},
		{720.25, 0, 0.0005, 0, 250, 0, 1, 0},
		{360, 45, 0, 0, 0, 45000, 0, 0},
	}
	for _, c := range conv {
		put(e, c.az, c.el, c.azRate, c.elRate)
		e.Synchronise()
		p := r.waitLast(func(p wire.Packet) bool {
			return p.AzMdeg == c.wantAz && p.ElMdeg == c.wantEl && p.AzRate == c.wantAzR && p.ElRate == c.wantE
		})
		if p.AzMdeg != c.wantAz || p.ElMdeg != c.wantEl || p.AzRate != c.wantAzR || p.ElRate != c.wantE {
			t.Errorf("az %v° el %v° rates %v,%v: got az %d el %d rates %d,%d; want %d %d %d,%d",
				c.az, c.el, c.azRate, c.elRate, p.AzMdeg, p.ElMdeg, p.AzRate, p.ElRate, c.wantAz, c.wantEl, c.wantAzR, c.wantE)
		}
	}
	waitFor(t, "110 packets", func() bool { return r.count() >= 110 })
	e.Close()
	r.drain(50 * time.Millisecond)

	const want = wire.AzValid | wire.ElValid | wire.AzRefOK | wire.ElRefOK | wire.Sim
	wrapped := false
	var prevT uint64
	for i, b := range r.raw {
		if binary.LittleEndian.Uint16(b[0:]) != 0x5244 || b[2] != 1 || b[3] != 0 || b[34] != 0 || b[35] != 0 {
			t.Fatalf("packet %d: bad header or reserved bytes % x", i, b[:])
		}
		p := r.pkts[i]
		if wantSeq := cfg.FirstSeq + uint32(i); p.Seq != wantSeq {
			t.Fatalf("packet %d: seq %#x, want %#x", i, p.Seq, wantSeq)
		}
		if p.Seq == 0 {
			wrapped = true
		}
		if p.Status != want {
			t.Fatalf("packet %d: status %v, want %v", i, p.Status, want)
		}
		if i > 0 && p.TUs <= prevT {
			t.Fatalf("packet %d: t_us %d after %d", i, p.TUs, prevT)
		}
		prevT = p.TUs
	}
	if !wrapped {
		t.Error("seq never wrapped through 0")
	}
	s := r.mon.Snapshot()
	if s.Missing != 0 || s.Duplicates != 0 || s.Reorders != 0 || s.Restarts != 0 || s.JumpsBack != 0 || s.Degraded != 0 {
		t.Errorf("nominal stream: %+v", s)
	}
	if s.Sim != s.Packets || s.Packets != e.m.sent.Get() {
		t.Errorf("sim %d packets %d sent %d", s.Sim, s.Packets, e.m.sent.Get())
	}
	ps := s.Period
	t.Logf("100 Hz over %d periods: mean %.0f µs, std %.0f µs, min %d, max %d, p50 %d, p99 %d, max |dev| %d µs, beyond ±2 ms %d, ticks missed %d",
		ps.Count, ps.MeanUs, ps.StdUs, ps.MinUs, ps.MaxUs, ps.P50Us, ps.P99Us, ps.MaxDevUs, ps.OutOfTolerance, e.m.ticksMissed.Get())
	// The cadence itself is measured by BenchmarkCadence, not asserted here:
	// a loaded machine can stall the emitter for hundreds of ms.
	if ps.Count < 100 {
		t.Errorf("%d periods measured, want at least 100", ps.Count)
	}
}

// TestNoReadingBeforeSynchronise: before the first Synchronise there is no
// reading, so AZ_VALID and EL_VALID are clear.
func TestNoReadingBeforeSynchronise(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	e := startEnc(t, testConfig(500), r)
	run(t, e)
	waitFor(t, "packets", func() bool { return r.count() >= 5 })
	p, _ := r.last()
	if (p.Status&wire.AzValid != 0) || (p.Status&wire.ElValid != 0) || !(p.Status&(wire.AzRefOK|wire.Sim) == wire.AzRefOK|wire.Sim) {
		t.Errorf("before Synchronise: status %v", p.Status)
	}
	put(e, 1, 2, 0, 0)
	e.Synchronise()
	p = r.waitLast(func(p wire.Packet) bool { return p.AzMdeg == 1000 })
	if !(p.Status&(wire.AzValid|wire.ElValid) == wire.AzValid|wire.ElValid) || p.AzMdeg != 1000 || p.ElMdeg != 2000 {
		t.Errorf("after Synchronise: %+v", p)
	}
}

// TestNonFiniteReadingIsInvalid: a NaN or infinite azimuth or elevation
// clears that axis's VALID bit and repeats the last good values; the other
// axis is unaffected.
func TestNonFiniteReadingIsInvalid(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	e := startEnc(t, testConfig(500), r)
	run(t, e)
	put(e, 10, 20, 1, 2)
	e.Synchronise()
	r.waitLast(func(p wire.Packet) bool { return p.AzMdeg == 10000 })
	put(e, math.Inf(1), 30, 1, 2)
	e.Synchronise()
	p := r.waitLast(func(p wire.Packet) bool { return p.ElMdeg == 30000 })
	if p.AzMdeg != 10000 || (p.Status&wire.AzValid != 0) || !(p.Status&wire.ElValid != 0) {
		t.Errorf("az = +Inf: %+v (%v)", p, p.Status)
	}
	put(e, 40, math.NaN(), 1, 2)
	e.Synchronise()
	p = r.waitLast(func(p wire.Packet) bool { return p.AzMdeg == 40000 })
	if p.ElMdeg != 30000 || (p.Status&wire.ElValid != 0) || !(p.Status&wire.AzValid != 0) {
		t.Errorf("el = NaN: %+v (%v)", p, p.Status)
	}
	if e.m.nonFinite.Get() == 0 {
		t.Error("non-finite readings not counted")
	}
}

// TestMdegSignalsAndStatusSignal maps integer millidegree signals and a
// status signal whose bits 0..5 drive the status word.
func TestMdegSignalsAndStatusSignal(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	cfg := testConfig(500)
	cfg.AzimuthUnit, cfg.ElevationUnit, cfg.RateUnit = "mdeg", "mdeg", "mdeg/s"
	cfg.StatusSignal = "St"
	cfg.Signals = []datasource.Signal{
		{Name: "Az", Type: datasource.Int32},
		{Name: "El", Type: datasource.Int64},
		{Name: "AzRate", Type: datasource.Float32},
		{Name: "ElRate", Type: datasource.Int16},
		{Name: "St", Type: datasource.Uint16},
	}
	e := startEnc(t, cfg, r)
	ne := binary.NativeEndian
	ne.PutUint32(testenv.Must(e.GetSignalMemoryBuffer(0)), uint32(0xFFFFFFFF)) // -1 mdeg
	ne.PutUint64(testenv.Must(e.GetSignalMemoryBuffer(1)), uint64(100000))     // beyond +90°: passes
	ne.PutUint32(testenv.Must(e.GetSignalMemoryBuffer(2)), 0xC0200000)         // -2.5 → -3 (half away from zero)
	ne.PutUint16(testenv.Must(e.GetSignalMemoryBuffer(3)), uint16(0x8000))     // -32768
	ne.PutUint16(testenv.Must(e.GetSignalMemoryBuffer(4)), 0xFF00|0b110110)    // EL_VALID, AZ_REF_OK, AZ_FAULT, EL_FAULT; high bits ignored
	e.Synchronise()
	run(t, e)
	waitFor(t, "packets", func() bool { return r.count() >= 3 })
	p, _ := r.last()
	want := wire.Packet{Seq: p.Seq, TUs: p.TUs, AzMdeg: 359999, ElMdeg: 100000, AzRate: -3, ElRate: -32768,
		Status: wire.ElValid | wire.AzRefOK | wire.AzFault | wire.ElFault | wire.Sim}
	if p != want {
		t.Errorf("got  %+v\nwant %+v", p, want)
	}
}

// phase runs an encoder at 500 Hz with a moving driver: warm up, body,
// stop, drain. It returns the received packets.
func phase(t *testing.T, mc client.MonitorConfig, mod func(*Config), body func(e *Encoder)) (*Encoder, *rx) {
	t.Helper()
	mc.NominalRate = 500
	r := newRx(t, mc)
	cfg := testConfig(500)
	if mod != nil {
		mod(&cfg)
	}
	e := startEnc(t, cfg, r)
	put(e, 0, 10, 1, -1)
	e.Synchronise()
	stop := driver(e)
	run(t, e)
	waitTicks(t, e, 20)
	body(e)
	stop()
	e.Close()
	r.drain(30 * time.Millisecond)
	return e, r
}

// checkPattern checks that the seq numbers missing from the received
// packets are exactly those the seeded decisions predict, from the first
// packet after activation, and returns how many were missing.
func checkPattern(t *testing.T, r *rx, drop func() bool) int {
	t.Helper()
	first, last, got := seqSpan(r.pkts)
	if first == 0xFFFFFFFF {
		t.Fatal("no degraded packet and no gap")
	}
	n := 0
	for s := first; ; s++ {
		exp := drop()
		miss := got[s] == 0
		if s > last {
			if miss && exp {
				n++
				continue
			}
			break
		}
		if exp != miss {
			t.Fatalf("seq %d (#%d of the pattern): missing %v, predicted %v", s, s-first, miss, exp)
		}
		if miss {
			n++
		}
	}
	return n
}

func checkEvents(t *testing.T, e *Encoder, name string, act, deact uint64) {
	t.Helper()
	k, _ := kindOfName(name)
	if a, d := e.m.activations[k].Get(), e.m.deactivations[k].Get(); a != act || d != deact {
		t.Errorf("%s: %d activations, %d deactivations; want %d, %d (events %+v)", name, a, d, act, deact, eventsOf(e, name))
	}
}

func TestLossEveryN(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		setFor(t, e, "loss_every_n", "5", 100)
		setFor(t, e, "loss_every_n", "0", 20)
	})
	i := 0
	n := checkPattern(t, r, func() bool { i++; return i%5 == 0 })
	s := r.mon.Snapshot()
	if uint64(n) != e.m.droppedLoss.Get() || s.Missing != uint64(n) || s.GapEvents != uint64(n) || n < 15 {
		t.Errorf("1 in 5: %d missing by pattern, emitter dropped %d, monitor missing %d in %d gaps", n, e.m.droppedLoss.Get(), s.Missing, s.GapEvents)
	}
	checkEvents(t, e, "loss_every_n", 1, 1)
}

// TestLossEveryNExact starts with 1-in-5 from the config: over the first
// 100 packets exactly 20 are missing.
func TestLossEveryNExact(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	cfg := testConfig(500)
	cfg.FirstSeq = 1000
	cfg.Degradations = map[string]string{"loss_every_n": "5"}
	e := startEnc(t, cfg, r)
	e.Synchronise()
	run(t, e)
	waitTicks(t, e, 110)
	e.Close()
	r.drain(30 * time.Millisecond)
	_, _, got := seqSpan(r.pkts)
	missing := 0
	for s := uint32(1000); s < 1100; s++ {
		if got[s] == 0 {
			missing++
			if (s-1000)%5 != 4 {
				t.Errorf("seq %d missing", s)
			}
		}
	}
	if missing != 20 {
		t.Errorf("%d of the first 100 missing, want 20", missing)
	}
	if ev := eventsOf(e, "loss_every_n"); len(ev) != 1 || ev[0].Source != "config" || ev[0].Action != activated || ev[0].Value != "5" {
		t.Errorf("events %+v", ev)
	}
}

func TestLossProbability(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		setFor(t, e, "loss_probability", "0.2", 150)
		setFor(t, e, "loss_probability", "0", 20)
	})
	g := newRng(42, kLossProbability)
	n := checkPattern(t, r, func() bool { return g.chance(0.2) })
	s := r.mon.Snapshot()
	if uint64(n) != e.m.droppedLoss.Get() || s.Missing != uint64(n) || n == 0 {
		t.Errorf("p=0.2: %d missing by the seeded pattern, emitter dropped %d, monitor missing %d", n, e.m.droppedLoss.Get(), s.Missing)
	}
	t.Logf("loss 0.2: %d of about 150 dropped", n)
	checkEvents(t, e, "loss_probability", 1, 1)
}

func TestBurstLoss(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		mustSet(t, e, "burst_loss_ms", "40")
		if v, err := e.Internals().(*internals).Degradation("burst_loss_ms"); err != nil || !(testenv.Must(strconv.ParseFloat(v, 64)) > 0 && testenv.Must(strconv.ParseFloat(v, 64)) <= 40) {
			t.Errorf("burst left %q ms, %v", v, err)
		}
		waitFor(t, "burst end", func() bool { return len(eventsOf(e, "burst_loss")) == 2 })
		waitTicks(t, e, 20)
	})
	s := r.mon.Snapshot()
	d := e.m.droppedBurst.Get()
	if s.Missing != d || s.GapEvents != 1 || d < 1 || d > 21 {
		t.Errorf("burst of 40 ms at 500 Hz: emitter dropped %d, monitor missing %d in %d gaps", d, s.Missing, s.GapEvents)
	}
	ev := eventsOf(e, "burst_loss")
	if ev[0].Action != activated || ev[0].Value != "40" || ev[1].Action != deactivated || ev[1].Source != "emitter" || ev[1].Reason != "elapsed" {
		t.Errorf("events %+v", ev)
	} else if dt := ev[1].TUs - ev[0].TUs; dt < 39000 || dt > 41000 {
		t.Errorf("burst lasted %d µs of emitter time", dt)
	}
	if v, _ := e.Internals().(*internals).Degradation("burst_loss_ms"); v != "0" {
		t.Errorf("burst still reported: %q ms left", v)
	}
	if _, err := e.Internals().(*internals).Degradation("bursty"); err == nil {
		t.Error("an unknown degradation read back")
	}
	checkEvents(t, e, "burst_loss", 1, 1)
}

func TestDuplicate(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		setFor(t, e, "duplicate_probability", "0.3", 100)
		setFor(t, e, "duplicate_probability", "0", 20)
	})
	first, last, got := seqSpan(r.pkts)
	g := newRng(42, kDuplicate)
	dups := 0
	for s := first; s <= last; s++ {
		if want := map[bool]int{true: 2, false: 1}[g.chance(0.3)]; got[s] != want {
			t.Fatalf("seq %d received %d times, the seeded draw says %d", s, got[s], want)
		}
		if got[s] == 2 {
			dups++
		}
	}
	s := r.mon.Snapshot()
	if s.Duplicates != e.m.duplicated.Get() || uint64(dups) != s.Duplicates || dups == 0 || s.Missing != 0 {
		t.Errorf("monitor duplicates %d, emitter %d, pattern %d, missing %d", s.Duplicates, e.m.duplicated.Get(), dups, s.Missing)
	}
	checkEvents(t, e, "duplicate", 1, 1)
}

func TestReorder(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		setFor(t, e, "reorder_window_ms", "10", 150)
		setFor(t, e, "reorder_window_ms", "0", 20)
		time.Sleep(15 * time.Millisecond) // the last held packets fall due
		waitTicks(t, e, 1)
	})
	s := r.mon.Snapshot()
	if s.Reorders != e.m.reordered.Get() || s.Reorders == 0 || s.Missing != s.Recovered || s.Duplicates != 0 {
		t.Errorf("monitor: %d reorders, %d missing, %d recovered; emitter: %d reordered, %d delayed",
			s.Reorders, s.Missing, s.Recovered, e.m.reordered.Get(), e.m.delayed.Get())
	}
	if e.m.sent.Get() != e.m.ticks.Get() {
		t.Errorf("%d sent of %d ticks", e.m.sent.Get(), e.m.ticks.Get())
	}
	t.Logf("reorder 10 ms at 500 Hz: %d delayed, %d overtaken", e.m.delayed.Get(), e.m.reordered.Get())
	checkEvents(t, e, "reorder", 1, 1)
}

func TestJitter(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		if err := e.Set("jitter_ms", "1.5"); err == nil || !strings.Contains(err.Error(), "jitter_ms") || !strings.Contains(err.Error(), "half the period") {
			t.Errorf("jitter beyond half a period: %v", err)
		}
		setFor(t, e, "jitter_ms", "0.8", 150)
		setFor(t, e, "jitter_ms", "0", 20)
	})
	s := r.mon.Snapshot()
	if s.Missing != 0 || s.Reorders != 0 || s.Duplicates != 0 || e.m.jittered.Get() == 0 || s.Degraded == 0 {
		t.Errorf("jitter: %+v, jittered %d", s, e.m.jittered.Get())
	}
	t.Logf("jitter ±0.8 ms at 500 Hz: period std %.0f µs, max |dev| %d µs", s.Period.StdUs, s.Period.MaxDevUs)
	checkEvents(t, e, "jitter", 1, 1)
}

func TestFreeze(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{FreezePackets: 20}, nil, func(e *Encoder) {
		setFor(t, e, "freeze", "true", 60)
		setFor(t, e, "freeze", "false", 30)
	})
	var held *wire.Packet
	frozen := 0
	for i := range r.pkts {
		p := &r.pkts[i]
		if !(p.Status&wire.Degraded != 0) {
			continue
		}
		frozen++
		if held == nil {
			held = p
		} else if p.AzMdeg != held.AzMdeg || p.ElMdeg != held.ElMdeg || p.AzRate != held.AzRate || p.ElRate != held.ElRate || p.Seq <= held.Seq {
			t.Fatalf("frozen packet %+v differs from %+v", *p, *held)
		}
	}
	s := r.mon.Snapshot()
	if uint64(frozen) != e.m.frozen.Get() || frozen < 50 || s.FrozenEvents < 1 {
		t.Errorf("%d frozen packets received, emitter %d, monitor frozen events %d", frozen, e.m.frozen.Get(), s.FrozenEvents)
	}
	p, _ := r.last()
	if p.AzMdeg == held.AzMdeg {
		t.Error("azimuth still frozen after freeze off")
	}
	checkEvents(t, e, "freeze", 1, 1)
}

func TestInvalidEncoder(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		setFor(t, e, "invalid_az", "on", 30)
		setFor(t, e, "invalid_az", "off", 5)
		setFor(t, e, "invalid_el", "1", 30)
		setFor(t, e, "invalid_el", "0", 10)
	})
	var az, el, deg int
	for _, p := range r.pkts {
		a, l := !(p.Status&wire.AzValid != 0), !(p.Status&wire.ElValid != 0)
		if a && l {
			t.Fatalf("both invalid: %+v", p)
		}
		if (a || l) != (p.Status&wire.Degraded != 0) {
			t.Fatalf("invalid without DEGRADED or the reverse: %+v", p)
		}
		if a {
			az++
		}
		if l {
			el++
		}
		if p.Status&wire.Degraded != 0 {
			deg++
		}
	}
	s := r.mon.Snapshot()
	if s.AzInvalid != uint64(az) || s.ElInvalid != uint64(el) || az < 25 || el < 25 || s.Degraded != uint64(deg) {
		t.Errorf("monitor az/el invalid %d/%d, packets %d/%d", s.AzInvalid, s.ElInvalid, az, el)
	}
	checkEvents(t, e, "invalid_az", 1, 1)
	checkEvents(t, e, "invalid_el", 1, 1)
}

func TestSeqJump(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		setFor(t, e, "seq_jump", "1000", 20)
		setFor(t, e, "seq_jump", "-50", 20)
	})
	s := r.mon.Snapshot()
	if s.GapEvents != 1 || s.Missing != 1000 || s.JumpsBack != 1 || s.Restarts != 0 || e.m.seqJumps.Get() != 2 {
		t.Errorf("monitor: %d gaps, %d missing, %d jumps back, %d restarts", s.GapEvents, s.Missing, s.JumpsBack, s.Restarts)
	}
	var degraded []uint32
	for _, p := range r.pkts {
		if p.Status&wire.Degraded != 0 {
			degraded = append(degraded, p.Seq)
		}
	}
	ev := eventsOf(e, "seq_jump")
	if len(ev) != 4 || len(degraded) != 2 || ev[1].Reason != "applied" || ev[1].Seq != degraded[0] || ev[3].Seq != degraded[1] {
		t.Errorf("events %+v, DEGRADED packets %v", ev, degraded)
	}
	checkEvents(t, e, "seq_jump", 2, 2)
}

// TestRestart simulates an emitter restart: seq and t_us go back together,
// which the monitor must classify as a restart (unlike a seq jump).
func TestRestart(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{}, nil, func(e *Encoder) {
		waitTicks(t, e, 30)
		setFor(t, e, restartKey, "true", 20)
	})
	s := r.mon.Snapshot()
	if s.Restarts != 1 || s.JumpsBack != 0 || e.m.restarts.Get() != 1 {
		t.Errorf("monitor: %d restarts, %d jumps back; encoder counted %d", s.Restarts, s.JumpsBack, e.m.restarts.Get())
	}
	ev := eventsOf(e, restartKey)
	if len(ev) != 1 || ev[0].Action != applied {
		t.Errorf("events %+v", ev)
	}
	if err := e.Set(restartKey, "false"); err == nil {
		t.Error("restart=false accepted")
	}
}

func TestSilence(t *testing.T) {
	e, r := phase(t, client.MonitorConfig{StreamTimeout: 50 * time.Millisecond}, nil, func(e *Encoder) {
		mustSet(t, e, "silence", "true")
		time.Sleep(200 * time.Millisecond)
		setFor(t, e, "silence", "false", 20)
	})
	s := r.mon.Snapshot()
	if s.Timeouts < 1 || s.Missing != e.m.silenced.Get() || s.GapEvents != 1 || e.m.silenced.Get() < 10 || s.Degraded != 0 {
		t.Errorf("silence: %d timeouts, %d missing in %d gaps, %d silenced", s.Timeouts, s.Missing, s.GapEvents, e.m.silenced.Get())
	}
	checkEvents(t, e, "silence", 1, 1)
}

// TestEventsAccounting switches every degradation on and off at once.
func TestEventsAccounting(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	e := startEnc(t, testConfig(500), r)
	if err := e.Set("freeze", "true"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("before start: %v", err)
	}
	run(t, e)
	all := degradations{LossProbability: 0.1, LossEveryN: 3, BurstLoss: time.Hour, DuplicateProbability: 0.1,
		ReorderWindow: time.Millisecond, Jitter: 100 * time.Microsecond, Freeze: true, InvalidAz: true, InvalidEl: true, SeqJump: 7, Silence: true}
	if err := e.setDegradations(all); err != nil {
		t.Fatal(err)
	}
	st := e.snapshot()
	if !st.Degraded || len(st.Active) < 10 { // the seq jump may be applied already
		t.Errorf("status active %v", st.Active)
	}
	waitFor(t, "seq jump applied", func() bool { return len(eventsOf(e, "seq_jump")) == 2 })
	mustSet(t, e, "loss_probability", "0.2")
	if err := e.setDegradations(degradations{}); err != nil {
		t.Fatal(err)
	}
	for k := range numKinds {
		checkEvents(t, e, kindNames[k], 1, 1)
	}
	if ev := eventsOf(e, "loss_probability"); len(ev) != 3 || ev[1].Action != changed || ev[1].Value != "0.2" {
		t.Errorf("loss events %+v", ev)
	}
	if ev := eventsOf(e, "burst_loss"); ev[1].Reason != "cancelled" {
		t.Errorf("burst events %+v", ev)
	}
	st = e.snapshot()
	if st.Degraded || len(st.Active) != 0 || len(st.Events) != 23 /* 11 on, 1 changed, 11 off */ {
		t.Errorf("after clearing: degraded %v active %v, %d events", st.Degraded, st.Active, len(st.Events))
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"spec":"RD100S-ENC-UDP v1"`, `"burst_loss_ms":0`, `"degradation":"seq_jump"`, `"reason":"applied"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("status JSON lacks %s: %s", key, b)
		}
	}
	if err := e.Set("loss_probability", "1.5"); err == nil || !strings.Contains(err.Error(), "loss_probability: must be a probability") {
		t.Errorf("bad probability: %v", err)
	}
	var ce *datasource.ConfigError
	if err := e.Set("reorder_window_ms", "-1"); !errors.As(err, &ce) || ce.Parameter != "reorder_window_ms" {
		t.Errorf("negative window: %v", err)
	}
	if err := e.Set("warp", "1"); err == nil || !strings.Contains(err.Error(), "unknown degradation") {
		t.Errorf("unknown key: %v", err)
	}
	if err := e.Set("freeze", "maybe"); err == nil || !strings.Contains(err.Error(), `freeze: cannot parse "maybe"`) {
		t.Errorf("bad bool: %v", err)
	}
	e.Close()
	if err := e.Set("freeze", "true"); !errors.Is(err, datasource.ErrClosed) {
		t.Errorf("after stop: %v", err)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"no host", func(c *Config) { c.DestHost = "" }, "dest_host: is required"},
		{"dest port", func(c *Config) { c.DestPort = 70000 }, "dest_port: must be 1..65535"},
		{"src port", func(c *Config) { c.SrcPort = -1 }, "src_port: must be 0..65535"},
		{"rate", func(c *Config) { c.RateHz = -1 }, "rate_hz: must be ≥ 1/3600"},
		{"rate low", func(c *Config) { c.RateHz = 1e-10 }, "rate_hz: must be ≥ 1/3600 (one packet an hour)"},
		{"rate high", func(c *Config) { c.RateHz = 20000 }, "rate_hz: must be ≥ 1/3600 (one packet an hour) and ≤ 10000"},
		{"no azimuth", func(c *Config) { c.AzimuthSignal = "" }, "azimuth_signal: is required"},
		{"unknown el", func(c *Config) { c.ElevationSignal = "Nope" }, `elevation_signal: names no signal of this datasource: "Nope"`},
		{"array rate", func(c *Config) {
			c.Signals = append(c.Signals, datasource.Signal{Name: "Arr", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 3})
			c.AzRateSignal = "Arr"
		}, `az_rate_signal: signal "Arr" must be a scalar`},
		{"float status", func(c *Config) { c.StatusSignal = "Az" }, `status_signal: signal "Az" must have an integer type`},
		{"char8 status", func(c *Config) {
			c.Signals = append(c.Signals, datasource.Signal{Name: "Text", Type: datasource.Char8, NumberOfDimensions: 1, NumberOfElements: 2})
			c.StatusSignal = "Text"
		}, `status_signal: signal "Text" is char8, text; the packet's fields are numbers`},
		{"unit", func(c *Config) { c.RateUnit = "rad/s" }, "rate_unit: must be deg or mdeg"},
		{"loss p", func(c *Config) { c.Degradations = map[string]string{"loss_probability": "2"} }, "loss_probability: must be a probability in 0..1"},
		{"dup p", func(c *Config) { c.Degradations = map[string]string{"duplicate_probability": "-0.1"} }, "duplicate_probability: must be a probability"},
		{"every n", func(c *Config) { c.Degradations = map[string]string{"loss_every_n": "-1"} }, "loss_every_n: must be 0 (off) or 1.."},
		{"burst", func(c *Config) { c.Degradations = map[string]string{"burst_loss_ms": "-1"} }, "burst_loss_ms: must be 0..3600000 ms, got -1"},
		{"reorder", func(c *Config) { c.Degradations = map[string]string{"reorder_window_ms": "11000"} }, "reorder_window_ms: must be 0..10000 ms"},
		{"jitter", func(c *Config) { c.Degradations = map[string]string{"jitter_ms": "6"} }, "jitter_ms: must be 0..5 ms (half the period at 100 Hz"},
		{"unknown degradation", func(c *Config) { c.Degradations = map[string]string{"lossy": "1"} }, "lossy: unknown degradation (want one of loss_probability,"},
		{"unparsed degradation", func(c *Config) { c.Degradations = map[string]string{"freeze": "maybe"} }, `freeze: cannot parse "maybe"`},
	}
	for _, tc := range cases {
		c := testConfig(100)
		tc.mod(&c)
		err := Validate(&c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `datasource "Enc"`) {
			t.Errorf("%s:\n got %v\nwant %q", tc.name, err, tc.want)
			continue
		}
		var ce *datasource.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: not a ConfigError", tc.name)
		}
	}
	good := testConfig(0)
	good.DestPort = 0
	if err := Validate(&good); err != nil {
		t.Error(err)
	}
	// New resolves dest_host: an IPv6-only literal is a clear error.
	bad := testConfig(100)
	bad.DestHost = "::1"
	_, err := New(bad, metrics.NewSet(), discard())
	var ce *datasource.ConfigError
	if !errors.As(err, &ce) || ce.Parameter != "dest_host" || !strings.Contains(err.Error(), "does not resolve to an IPv4 address") {
		t.Errorf("IPv6 dest_host: %v", err)
	}
	named := testConfig(100)
	named.DestHost = "localhost"
	e, err := New(named, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if e.dst.Port() != defaultDestPort || !e.dst.Addr().IsLoopback() {
		t.Errorf("localhost resolved to %v", e.dst)
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Signal indices of testConfig.
const (
	sigAz = iota
	sigEl
	sigAzRate
	sigElRate
	sigCounter
)

// testConfig maps az/el (float64, degrees) and the rates (float32, deg/s).
func testConfig(rate float64) Config {
	c := DefaultConfig()
	c.Name = "Enc"
	c.DestHost = "127.0.0.1"
	c.RateHz = rate
	c.Seed = 42
	c.AzimuthSignal, c.ElevationSignal = "Az", "El"
	c.AzRateSignal, c.ElRateSignal = "AzRate", "ElRate"
	c.Signals = []datasource.Signal{
		{Name: "Az", Type: datasource.Float64, Unit: "deg"},
		{Name: "El", Type: datasource.Float64, Unit: "deg"},
		{Name: "AzRate", Type: datasource.Float32, Unit: "deg/s"},
		{Name: "ElRate", Type: datasource.Float32, Unit: "deg/s"},
		{Name: "Counter", Type: datasource.Uint32},
	}
	return c
}

// rx is the receiving side: a loopback socket read by a goroutine into an
// client.Monitor, keeping every datagram for packet-level checks.
type rx struct {
	conn *net.UDPConn
	mu   sync.Mutex
	mon  *client.Monitor
	raw  [][wire.PacketSize]byte
	pkts []wire.Packet
	cls  []client.SeqClass
	bad  int
	done chan struct{}
}

func newRx(t testing.TB, mc client.MonitorConfig) *rx {
	t.Helper()
	conn := testenv.Loopback(t)
	conn.SetReadBuffer(4 << 20)
	r := &rx{conn: conn, mon: client.NewMonitor(mc), done: make(chan struct{})}
	go r.loop()
	t.Cleanup(r.close)
	return r
}

func (r *rx) port() int { return r.conn.LocalAddr().(*net.UDPAddr).Port }

func (r *rx) loop() {
	defer close(r.done)
	buf := make([]byte, 512)
	tick := r.mon.Config().StreamTimeout / 4
	for {
		r.conn.SetReadDeadline(time.Now().Add(tick))
		n, _, err := r.conn.ReadFromUDPAddrPort(buf)
		now := time.Now()
		r.mu.Lock()
		if err != nil {
			r.mon.Tick(now)
			r.mu.Unlock()
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			return
		}
		c := r.mon.Observe(buf[:n], now)
		if n != wire.PacketSize {
			r.bad++
		} else {
			var a [wire.PacketSize]byte
			copy(a[:], buf)
			p, _ := wire.ParsePacket(buf[:n])
			r.raw = append(r.raw, a)
			r.pkts = append(r.pkts, p)
			r.cls = append(r.cls, c)
		}
		r.mu.Unlock()
	}
}

func (r *rx) close() {
	r.conn.Close()
	<-r.done
}

// drain waits until nothing arrived for d, then stops reading.
func (r *rx) drain(d time.Duration) {
	for {
		n := r.count()
		time.Sleep(d)
		if r.count() == n {
			break
		}
	}
	r.close()
}

func (r *rx) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pkts)
}

func (r *rx) last() (wire.Packet, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pkts) == 0 {
		return wire.Packet{}, false
	}
	return r.pkts[len(r.pkts)-1], true
}

// waitLast waits up to 5 s for the last packet received to satisfy ok and
// returns it (the last one seen if it never does).
func (r *rx) waitLast(ok func(p wire.Packet) bool) wire.Packet {
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, have := r.last()
		if have && ok(p) || time.Now().After(deadline) {
			return p
		}
		time.Sleep(time.Millisecond)
	}
}

func (r *rx) packets() []wire.Packet {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.Packet(nil), r.pkts...)
}

// startEnc builds, allocates and starts an Encoder sending to r.
func startEnc(t testing.TB, cfg Config, r *rx) *Encoder {
	t.Helper()
	cfg.DestPort = r.port()
	e, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func run(t testing.TB, e *Encoder) {
	t.Helper()
	if err := e.PrepareNextState(); err != nil {
		t.Fatal(err)
	}
}

// put writes the test signals (degrees, deg/s) into signal memory; call
// Synchronise to publish them.
func put(e *Encoder, az, el float64, azRate, elRate float32) {
	ne := binary.NativeEndian
	ne.PutUint64(testenv.Must(e.GetSignalMemoryBuffer(sigAz)), math.Float64bits(az))
	ne.PutUint64(testenv.Must(e.GetSignalMemoryBuffer(sigEl)), math.Float64bits(el))
	ne.PutUint32(testenv.Must(e.GetSignalMemoryBuffer(sigAzRate)), math.Float32bits(azRate))
	ne.PutUint32(testenv.Must(e.GetSignalMemoryBuffer(sigElRate)), math.Float32bits(elRate))
}

// waitTicks waits until the emitter has built n more ticks.
func waitTicks(t testing.TB, e *Encoder, n uint64) {
	t.Helper()
	target := e.m.ticks.Get() + n
	deadline := time.Now().Add(20 * time.Second)
	for e.m.ticks.Get() < target {
		if time.Now().After(deadline) {
			t.Fatalf("emitter stuck at %d ticks, want %d", e.m.ticks.Get(), target)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitFor polls cond for up to 20 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, what, 20*time.Second, cond)
}

// driver moves the azimuth 0.01° and the elevation 0.001° per call of
// Synchronise, about every 200 µs, until stopped.
func driver(e *Encoder) (stop func()) {
	var wg sync.WaitGroup
	quit := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			default:
			}
			put(e, float64(i)*0.01, 10+float64(i)*0.001, 1, -1)
			e.Synchronise()
			time.Sleep(200 * time.Microsecond)
		}
	})
	return func() { close(quit); wg.Wait() }
}

func mustSet(t testing.TB, e *Encoder, key, value string) {
	t.Helper()
	if err := e.Set(key, value); err != nil {
		t.Fatal(err)
	}
}

// setFor sets the degradation key to value and waits n ticks.
func setFor(t testing.TB, e *Encoder, key, value string, n uint64) {
	t.Helper()
	mustSet(t, e, key, value)
	waitTicks(t, e, n)
}

// eventsOf returns the events of one degradation.
func eventsOf(e *Encoder, name string) []event {
	var out []event
	for _, ev := range e.events() {
		if ev.Degradation == name {
			out = append(out, ev)
		}
	}
	return out
}

// seqSpan returns, from the received packets, the seq numbers of the
// run in which a degradation was active: from the first DEGRADED or missing
// seq to the last DEGRADED one, and the set of seq numbers received. It
// assumes no wrap in the test window.
func seqSpan(pkts []wire.Packet) (first, last uint32, got map[uint32]int) {
	got = map[uint32]int{}
	var prev uint32
	first, last = math.MaxUint32, 0
	for i, p := range pkts {
		got[p.Seq]++
		if p.Status&wire.Degraded != 0 {
			first = min(first, p.Seq)
			last = max(last, p.Seq)
		}
		if i > 0 && p.Seq > prev+1 {
			first = min(first, prev+1)
		}
		prev = max(prev, p.Seq)
	}
	return first, last, got
}
