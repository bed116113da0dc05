package rd100slink

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

var t0 = time.Now()

// feeder drives a Monitor with crafted packets; arrival advances 10 ms per
// packet unless set.
type feeder struct {
	t   *testing.T
	m   *Monitor
	now time.Time
	buf []byte
}

func newFeeder(t *testing.T, cfg MonitorConfig) *feeder {
	return &feeder{t: t, m: NewMonitor(cfg), now: t0, buf: make([]byte, 0, wire.PacketSize)}
}

func (f *feeder) pkt(p wire.Packet) SeqClass {
	f.now = f.now.Add(10 * time.Millisecond)
	f.buf = wire.AppendPacket(f.buf[:0], &p)
	return f.m.Observe(f.buf, f.now)
}

// seq sends seq with t_us = tus and a moving position.
func (f *feeder) seq(seq uint32, tus uint64) SeqClass {
	return f.pkt(wire.Packet{Seq: seq, TUs: tus, AzMdeg: int32(tus / 1000 % 360000), ElMdeg: int32(seq % 1000), Status: wire.AzValid | wire.ElValid | wire.Sim})
}

func (f *feeder) expect(seq uint32, tus uint64, want SeqClass) {
	f.t.Helper()
	if got := f.seq(seq, tus); got != want {
		f.t.Fatalf("seq %d t %d: class %v, want %v", seq, tus, got, want)
	}
}

const P = 10000 // nominal period in µs

func TestClassifyInOrderGapReorderDuplicate(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	f.expect(1, 1*P, ClassFirst)
	f.expect(2, 2*P, ClassInOrder)
	f.expect(5, 5*P, ClassGap)
	f.expect(3, 3*P, ClassReorder)
	f.expect(3, 3*P, ClassDuplicate)
	f.expect(5, 5*P, ClassDuplicate)
	f.expect(2, 2*P, ClassDuplicate)
	f.expect(4, 4*P, ClassReorder)
	f.expect(6, 6*P, ClassInOrder)
	f.expect(9, 9*P, ClassGap)
	s := f.m.Snapshot()
	want := Stats{Datagrams: 10, Packets: 10, InOrder: 2, GapEvents: 2, Missing: 4, Recovered: 2, Duplicates: 3, Reorders: 2}
	checkCounts(t, s, want)
	if s.Period.Count != 2 || s.Period.MinUs != P || s.Period.MaxUs != P {
		t.Fatalf("period %+v", s.Period)
	}
}

func checkCounts(t *testing.T, got, want Stats) {
	t.Helper()
	type c struct {
		name      string
		got, want uint64
	}
	for _, x := range []c{
		{"Datagrams", got.Datagrams, want.Datagrams},
		{"Packets", got.Packets, want.Packets},
		{"DiscardSize", got.DiscardSize, want.DiscardSize},
		{"DiscardMagic", got.DiscardMagic, want.DiscardMagic},
		{"DiscardVersion", got.DiscardVersion, want.DiscardVersion},
		{"InOrder", got.InOrder, want.InOrder},
		{"GapEvents", got.GapEvents, want.GapEvents},
		{"Missing", got.Missing, want.Missing},
		{"Recovered", got.Recovered, want.Recovered},
		{"Duplicates", got.Duplicates, want.Duplicates},
		{"Reorders", got.Reorders, want.Reorders},
		{"Restarts", got.Restarts, want.Restarts},
		{"JumpsBack", got.JumpsBack, want.JumpsBack},
		{"TimeBackwards", got.TimeBackwards, want.TimeBackwards},
		{"Timeouts", got.Timeouts, want.Timeouts},
		{"FrozenEvents", got.FrozenEvents, want.FrozenEvents},
		{"AzInvalid", got.AzInvalid, want.AzInvalid},
		{"ElInvalid", got.ElInvalid, want.ElInvalid},
		{"AzFault", got.AzFault, want.AzFault},
		{"ElFault", got.ElFault, want.ElFault},
		{"Degraded", got.Degraded, want.Degraded},
	} {
		if x.got != x.want {
			t.Errorf("%s = %d, want %d", x.name, x.got, x.want)
		}
	}
}

func TestClassifySeqWrap(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	f.expect(0xFFFFFFFE, 1*P, ClassFirst)
	f.expect(0xFFFFFFFF, 2*P, ClassInOrder)
	f.expect(0, 3*P, ClassInOrder)
	f.expect(1, 4*P, ClassInOrder)
	f.expect(0xFFFFFFFF, 2*P, ClassDuplicate)
	f.expect(4, 7*P, ClassGap)
	f.expect(2, 5*P, ClassReorder)

	g := newFeeder(t, MonitorConfig{})
	g.expect(0xFFFFFFFD, 1*P, ClassFirst)
	g.expect(1, 5*P, ClassGap) // 0xFFFFFFFE, 0xFFFFFFFF, 0 missing
	g.expect(0xFFFFFFFF, 3*P, ClassReorder)
	g.expect(0, 4*P, ClassReorder)
	g.expect(0, 4*P, ClassDuplicate)
	g.expect(2, 6*P, ClassInOrder)
	checkCounts(t, g.m.Snapshot(), Stats{Datagrams: 6, Packets: 6, InOrder: 1, GapEvents: 1, Missing: 3, Recovered: 2, Reorders: 2, Duplicates: 1})
}

func TestClassifyRestart(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	for i := uint32(0); i < 20; i++ {
		f.seq(100+i, 3_600_000_000+uint64(i)*P)
	}
	f.expect(0, 5000, ClassRestart) // far below, t back to near zero
	f.expect(1, 5000+P, ClassInOrder)
	f.expect(2, 5000+2*P, ClassInOrder)

	// Restart landing on a seq already seen, with a different t_us.
	f.expect(1, 400, ClassRestart)
	f.expect(2, 400+P, ClassInOrder)

	// Restart landing below the epoch start, t far older than 4 periods per step.
	h := newFeeder(t, MonitorConfig{})
	h.expect(100, 3_600_000_000, ClassFirst)
	h.expect(101, 3_600_000_000+P, ClassInOrder)
	h.expect(90, 7, ClassRestart)

	// Back beyond the window with t back is a restart too.
	g := newFeeder(t, MonitorConfig{})
	g.expect(5000, 5000*P, ClassFirst)
	g.expect(5000+SeqWindow, (5000+SeqWindow)*P, ClassGap)
	g.expect(4999, 4999*P, ClassRestart)
	checkCounts(t, g.m.Snapshot(), Stats{Datagrams: 3, Packets: 3, GapEvents: 1, Missing: SeqWindow - 1, Restarts: 1})
	s := f.m.Snapshot()
	if s.Restarts != 2 || s.Period.Count != 19+2+1 {
		t.Fatalf("restarts %d period count %d", s.Restarts, s.Period.Count)
	}
}

func TestClassifyImplausibleLateIsRestart(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	f.expect(10, 10*P, ClassFirst)
	f.expect(20, 20*P, ClassGap)
	f.expect(15, 9*P, ClassRestart) // older than seq 10: cannot be a late 15
	f.expect(16, 10*P, ClassInOrder)
	f.expect(30, 24*P, ClassGap)
	f.expect(25, 25*P, ClassJumpBack) // newer than hi: the emitter moved seq back
}

func TestClassifyJumpBack(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	for i := uint32(0); i <= 10; i++ {
		f.seq(500+i, uint64(i)*P)
	}
	f.expect(300, 11*P, ClassJumpBack) // seq back inside the window, t advancing
	f.expect(301, 12*P, ClassInOrder)
	f.expect(301, 13*P, ClassJumpBack) // same seq repeated with a newer t
	f.expect(302, 14*P, ClassInOrder)
	f.expect(1, 15*P, ClassJumpBack) // beyond the window
	f.expect(2, 16*P, ClassInOrder)
	f.expect(1_000_002, 17*P, ClassGap) // forward jump: a gap
	s := f.m.Snapshot()
	checkCounts(t, s, Stats{Datagrams: 18, Packets: 18, InOrder: 13, JumpsBack: 3, GapEvents: 1, Missing: 999_999})
}

func TestClassifyTimeBackwards(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	f.expect(1, 10*P, ClassFirst)
	f.expect(2, 5*P, ClassInOrder)
	f.expect(3, 6*P, ClassInOrder)
	s := f.m.Snapshot()
	if s.TimeBackwards != 1 || s.Period.Count != 1 {
		t.Fatalf("time backwards %d, periods %d", s.TimeBackwards, s.Period.Count)
	}
}

func TestClassifyStartupReorder(t *testing.T) {
	f := newFeeder(t, MonitorConfig{})
	f.expect(5, 5*P, ClassFirst)
	f.expect(4, 4*P, ClassReorder) // late, but never counted missing
	f.expect(3, 3*P, ClassReorder)
	f.expect(6, 6*P, ClassInOrder)
	s := f.m.Snapshot()
	if s.Reorders != 2 || s.Recovered != 0 || s.Missing != 0 {
		t.Fatalf("%+v", s)
	}
}

func TestFreeze(t *testing.T) {
	f := newFeeder(t, MonitorConfig{FreezePackets: 5})
	pos := func(seq uint32, az, el int32) {
		f.pkt(wire.Packet{Seq: seq, TUs: uint64(seq) * P, AzMdeg: az, ElMdeg: el, Status: wire.AzValid | wire.ElValid})
	}
	seq := uint32(1)
	next := func(az, el int32) { pos(seq, az, el); seq++ }
	next(1, 1)
	next(2, 1)
	for range 3 {
		next(3, 3)
	}
	if f.m.Snapshot().FrozenEvents != 0 {
		t.Fatal("early freeze")
	}
	next(3, 3)
	seq++ // a gap still counts as advancing
	next(3, 3)
	if s := f.m.Snapshot(); s.FrozenEvents != 1 || !s.Frozen {
		t.Fatalf("freeze not detected: %d %v", s.FrozenEvents, s.Frozen)
	}
	for range 20 {
		next(3, 3)
	}
	pos(seq-3, 3, 3) // a duplicate does not end the run
	if s := f.m.Snapshot(); s.FrozenEvents != 1 || !s.Frozen {
		t.Fatalf("long freeze: %d %v", s.FrozenEvents, s.Frozen)
	}
	next(3, 4) // elevation moves
	if s := f.m.Snapshot(); s.Frozen {
		t.Fatal("still frozen")
	}
	for range 4 {
		next(3, 4)
	}
	if s := f.m.Snapshot(); s.FrozenEvents != 2 || !s.Frozen {
		t.Fatalf("second freeze: %d %v", s.FrozenEvents, s.Frozen)
	}

	g := newFeeder(t, MonitorConfig{FreezePackets: -1})
	for i := range uint32(50) {
		g.pkt(wire.Packet{Seq: i, TUs: uint64(i) * P})
	}
	if g.m.Snapshot().FrozenEvents != 0 {
		t.Fatal("disabled freeze detection fired")
	}
}

func TestTimeout(t *testing.T) {
	m := NewMonitor(MonitorConfig{})
	b := wire.AppendPacket(nil, &wire.Packet{Seq: 1, TUs: P})
	m.Tick(t0.Add(time.Hour))
	if s := m.Snapshot(); s.Timeouts != 0 || s.TimedOut {
		t.Fatal("timeout before the first packet")
	}
	m.Observe(b, t0)
	m.Observe([]byte("junk"), t0.Add(50*time.Millisecond)) // does not feed the stream
	m.Tick(t0.Add(99 * time.Millisecond))
	if m.Snapshot().TimedOut {
		t.Fatal("timed out early")
	}
	m.Tick(t0.Add(100 * time.Millisecond))
	m.Tick(t0.Add(300 * time.Millisecond))
	if s := m.Snapshot(); s.Timeouts != 1 || !s.TimedOut {
		t.Fatalf("timeouts %d timedOut %v", s.Timeouts, s.TimedOut)
	}
	b = wire.AppendPacket(b[:0], &wire.Packet{Seq: 2, TUs: 2 * P})
	m.Observe(b, t0.Add(400*time.Millisecond))
	if s := m.Snapshot(); s.Timeouts != 1 || s.TimedOut {
		t.Fatalf("after resume: %d %v", s.Timeouts, s.TimedOut)
	}
	// A silence noticed only by the next packet still counts.
	b = wire.AppendPacket(b[:0], &wire.Packet{Seq: 3, TUs: 3 * P})
	m.Observe(b, t0.Add(600*time.Millisecond))
	if s := m.Snapshot(); s.Timeouts != 2 || s.TimedOut {
		t.Fatalf("untick silence: %d %v", s.Timeouts, s.TimedOut)
	}
}

func TestDiscardsAndStatus(t *testing.T) {
	m := NewMonitor(MonitorConfig{})
	good := wire.AppendPacket(nil, &wire.Packet{Seq: 1, TUs: P, Status: wire.AzFault | wire.Sim | wire.Degraded | wire.ElValid})
	bad := append([]byte(nil), good...)
	bad[0] = 0
	badv := append([]byte(nil), good...)
	badv[2] = 2 // the version byte
	for _, d := range [][]byte{nil, good[:35], append(good[:36:36], 1), bad, badv, badv} {
		if c := m.Observe(d, t0); c != ClassDiscarded {
			t.Fatalf("class %v", c)
		}
	}
	m.Observe(good, t0)
	g2 := wire.AppendPacket(nil, &wire.Packet{Seq: 2, TUs: 2 * P, Status: wire.ElFault | wire.AzValid | 0x8000})
	m.Observe(g2, t0)
	s := m.Snapshot()
	checkCounts(t, s, Stats{Datagrams: 8, Packets: 2, DiscardSize: 3, DiscardMagic: 1, DiscardVersion: 2, InOrder: 1,
		AzInvalid: 1, ElInvalid: 1, AzFault: 1, ElFault: 1, Degraded: 1})
	if s.Sim != 1 || !s.HaveLast || s.Last.Seq != 2 || s.Last.Status != wire.ElFault|wire.AzValid|0x8000 {
		t.Fatalf("%+v", s)
	}
}

func TestPeriodStats(t *testing.T) {
	m := NewMonitor(MonitorConfig{})
	tus := uint64(1_000_000)
	var b []byte
	send := func(seq uint32) {
		b = wire.AppendPacket(b[:0], &wire.Packet{Seq: seq, TUs: tus})
		m.Observe(b, t0)
	}
	send(1)
	for i, d := range []uint64{10000, 10000, 13000, 9000, 10100} {
		tus += d
		send(uint32(i + 2))
	}
	tus += 50000
	send(10) // a gap: not a period
	ps := m.Snapshot().Period
	if ps.Count != 5 || ps.MinUs != 9000 || ps.MaxUs != 13000 || ps.MeanUs != 10420 || ps.MaxDevUs != 3000 || ps.OutOfTolerance != 1 {
		t.Fatalf("%+v", ps)
	}
	if ps.P50Us != 10000 || ps.P99Us != 13000 { // the median exactly, not its bucket's edge
		t.Fatalf("quantiles %+v", ps)
	}
	if ip := m.TakeIntervalPeriod(); ip != ps {
		t.Fatalf("interval %+v", ip)
	}
	if ip := m.TakeIntervalPeriod(); ip.Count != 0 {
		t.Fatalf("interval not reset %+v", ip)
	}
	if m.Snapshot().Period != ps {
		t.Fatal("total reset by TakeIntervalPeriod")
	}
}

// TestClassifyRandom compares the Monitor with a window-free reference on
// random loss, duplication and reordering (displacements far below
// SeqWindow), starting near the seq wrap.
func TestClassifyRandom(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		start := uint32(0xFFFFFFFF - r.IntN(3000))
		const n = 5000
		type item struct {
			seq uint32
			tus uint64
			key float64
		}
		var out []item
		lost := 0
		for i := range n {
			it := item{seq: start + uint32(i), tus: 1e9 + uint64(i)*P, key: float64(i)}
			if i > 0 && r.Float64() < 0.05 {
				lost++
				continue
			}
			if i > 0 && r.Float64() < 0.05 {
				it.key += 1 + r.Float64()*20 // delivered late
			}
			out = append(out, it)
			if r.Float64() < 0.03 {
				d := it
				d.key += r.Float64() * 30
				out = append(out, d)
			}
		}
		// Stable order by key.
		sortItems(out, func(a, b item) bool { return a.key < b.key })

		m := NewMonitor(MonitorConfig{})
		seen := map[uint32]bool{}
		var hi int64 = -1
		var want Stats
		var buf []byte
		for _, it := range out {
			idx := int64(it.seq - start)
			switch {
			case hi < 0:
			case seen[it.seq]:
				want.Duplicates++
			case idx < hi:
				want.Reorders++
				want.Recovered++
			case idx == hi+1:
				want.InOrder++
			default:
				want.GapEvents++
				want.Missing += uint64(idx - hi - 1)
			}
			seen[it.seq] = true
			hi = max(hi, idx)
			buf = wire.AppendPacket(buf[:0], &wire.Packet{Seq: it.seq, TUs: it.tus, Status: wire.AzValid | wire.ElValid})
			m.Observe(buf, t0)
		}
		got := m.Snapshot()
		want.Datagrams, want.Packets = uint64(len(out)), uint64(len(out))
		want.FrozenEvents = got.FrozenEvents
		checkCounts(t, got, want)
		checkInvariants(t, got)
		// Lost at the tail (after the last delivered) are not seen as gaps.
		if got.Missing-got.Recovered > uint64(lost) {
			t.Errorf("seed %d: net missing %d > lost %d", seed, got.Missing-got.Recovered, lost)
		}
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

func sortItems[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

var sinkClass SeqClass

func TestObserveNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	m := NewMonitor(MonitorConfig{})
	buf := make([]byte, 0, wire.PacketSize)
	seq := uint32(0)
	now := t0
	n := testing.AllocsPerRun(1000, func() {
		seq++
		if seq%50 == 0 {
			seq += 3 // gaps
		}
		now = now.Add(10 * time.Millisecond)
		buf = wire.AppendPacket(buf[:0], &wire.Packet{Seq: seq, TUs: uint64(seq) * P})
		sinkClass = m.Observe(buf, now)
		if seq%7 == 0 {
			sinkClass = m.Observe(buf, now) // duplicate
		}
		m.Tick(now)
		_ = m.Snapshot()
	})
	if n != 0 {
		t.Fatalf("Observe: %v allocs", n)
	}
}

func checkInvariants(t *testing.T, s Stats) {
	t.Helper()
	classes := s.InOrder + s.GapEvents + s.Duplicates + s.Reorders + s.Restarts + s.JumpsBack
	if s.Packets > 0 {
		classes++ // ClassFirst
	}
	if classes != s.Packets {
		t.Fatalf("classes sum %d != packets %d: %+v", classes, s.Packets, s)
	}
	if s.Datagrams != s.Packets+s.DiscardSize+s.DiscardMagic+s.DiscardVersion {
		t.Fatalf("datagrams %+v", s)
	}
	if s.Recovered > s.Missing || s.Recovered > s.Reorders {
		t.Fatalf("recovered %+v", s)
	}
}

// FuzzMonitor feeds the Monitor arbitrary streams: every 4 input bytes are
// a signed seq step, a signed t_us step (in periods) and a position/status
// byte, so the fuzzer explores gaps, reorders, restarts and wraps.
func FuzzMonitor(f *testing.F) {
	f.Add([]byte{1, 1, 0, 0, 1, 1, 0, 0, 3, 3, 0, 0, 0xfe, 0xfe, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 1, 5, 5, 1, 1, 5, 5, 0x80, 0x80, 0, 0, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		m := NewMonitor(MonitorConfig{FreezePackets: 3})
		seq, tus := uint32(0xFFFFFFF0), uint64(1e9)
		now := t0
		var buf []byte
		for len(in) >= 4 {
			seq += uint32(int32(int8(in[0])))
			tus += uint64(int64(int8(in[1])) * P)
			now = now.Add(time.Duration(in[2]) * time.Millisecond)
			buf = wire.AppendPacket(buf[:0], &wire.Packet{Seq: seq, TUs: tus, AzMdeg: int32(in[3] & 3), Status: wire.Status(in[3])})
			if in[3] == 0xff {
				buf = buf[:wire.PacketSize-1]
			}
			m.Observe(buf, now)
			m.Tick(now)
			checkInvariants(t, m.Snapshot())
			in = in[4:]
		}
	})
}

// TestPeriodQuantilesExact: periods jittered around the nominal 10 ms give
// their exact median and 99th percentile, between the minimum and the
// maximum, where the mean is too; far ones fall in coarse buckets.
func TestPeriodQuantilesExact(t *testing.T) {
	m := NewMonitor(MonitorConfig{})
	tus := uint64(0)
	var b []byte
	var periods []uint64
	r := rand.New(rand.NewPCG(5, 6))
	for seq := range uint32(10_001) {
		if seq > 0 {
			d := uint64(9803 + r.IntN(400))
			if seq%500 == 0 {
				d = 31_000 // beyond the fine range
			}
			periods = append(periods, d)
			tus += d
		}
		b = wire.AppendPacket(b[:0], &wire.Packet{Seq: seq, TUs: tus})
		m.Observe(b, t0)
	}
	slices.Sort(periods)
	ps := m.Snapshot().Period
	want50, want99 := periods[(len(periods)+1)/2-1], periods[len(periods)*99/100-1]
	if ps.P50Us != want50 || ps.P99Us != want99 || ps.MinUs != 9803 || ps.MaxUs != 31_000 {
		t.Errorf("min %d p50 %d p99 %d max %d, want 9803 %d %d 31000", ps.MinUs, ps.P50Us, ps.P99Us, ps.MaxUs, want50, want99)
	}
	if ps.MeanUs < float64(ps.MinUs) || ps.MeanUs > float64(ps.MaxUs) {
		t.Errorf("mean %v outside [min, max]", ps.MeanUs)
	}
}

// TestPeriodGarbageTime: in-order packets whose t_us jumps by up to 2^64-1
// are clock jumps, not periods: the figures stay those of the real periods.
func TestPeriodGarbageTime(t *testing.T) {
	m := NewMonitor(MonitorConfig{})
	var b []byte
	for i, tus := range []uint64{0, 10_000, 20_000, math.MaxUint64, 5, 10_005, 1 << 40, 1<<40 + 9_990} {
		b = wire.AppendPacket(b[:0], &wire.Packet{Seq: uint32(i), TUs: tus})
		m.Observe(b, t0)
	}
	s := m.Snapshot()
	ps := s.Period
	if s.TimeJumps != 2 || ps.Count != 4 || ps.MaxUs != 10_000 || ps.P99Us != 10_000 || ps.P50Us != 10_000 || ps.MinUs != 9_990 {
		t.Errorf("time jumps %d, period %+v", s.TimeJumps, ps)
	}
}

func TestMonitorConfigValidate(t *testing.T) {
	if err := (MonitorConfig{}).Validate(); err != nil {
		t.Errorf("zero value: %v", err)
	}
	for _, c := range []MonitorConfig{
		{StreamTimeout: -time.Second}, {NominalRate: -1}, {NominalRate: math.NaN()}, {NominalRate: math.Inf(1)}, {PeriodTolerance: -1},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
