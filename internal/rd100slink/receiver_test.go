package rd100slink

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

// loopPair returns a listening receiver socket on 127.0.0.1 and a sender
// socket, both closed at cleanup.
func loopPair(tb testing.TB) (rx, tx *net.UDPConn, dst netip.AddrPort) {
	tb.Helper()
	rx = testenv.Loopback(tb)
	_ = rx.SetReadBuffer(1 << 20)
	tx = testenv.Loopback(tb)
	return rx, tx, rx.LocalAddr().(*net.UDPAddr).AddrPort()
}

// step is one thing the crafted emitter does: send a datagram or stay silent.
type step struct {
	data  []byte
	pause time.Duration
}

type scenario struct {
	steps []step
	valid uint64
	tus   uint64
	az    int32
}

func (s *scenario) send(seq uint32, tus uint64, az, el int32, st wire.Status) {
	s.steps = append(s.steps, step{data: wire.AppendPacket(nil, &wire.Packet{Seq: seq, TUs: tus, AzMdeg: az, ElMdeg: el, AzRate: 1000, Status: st})})
	s.valid++
}

// next emits seq one period after the previous emission with a moving azimuth.
func (s *scenario) next(seq uint32, st wire.Status) {
	s.tus += P
	s.az = wire.NormalizeAzimuthMdeg(int64(s.az) + 10)
	s.send(seq, s.tus, s.az, 45000, st)
}

func (s *scenario) junk(b []byte)           { s.steps = append(s.steps, step{data: b}) }
func (s *scenario) silence(d time.Duration) { s.steps = append(s.steps, step{pause: d}) }

func TestLoopbackScenario(t *testing.T) {
	// Generous: a receiver descheduled for a whole timeout on a loaded box
	// would really see a silence and count it.
	const timeout = time.Second
	ok := wire.AzValid | wire.ElValid | wire.AzRefOK | wire.ElRefOK | wire.Sim
	sc := &scenario{tus: 7_200_000_000, az: 359500} // the emitter has been up for two hours; azimuth wraps
	var want Stats

	// 1. In order: 50 packets.
	for seq := uint32(1000); seq < 1050; seq++ {
		sc.next(seq, ok)
	}
	want.InOrder += 49 // the first one is ClassFirst
	// 2. Gap: 1050, 1051 lost.
	sc.tus += 2 * P
	for seq := uint32(1052); seq < 1060; seq++ {
		sc.next(seq, ok)
	}
	want.GapEvents, want.Missing, want.InOrder = 1, 2, want.InOrder+7
	// 3. Duplicate of 1059.
	sc.steps = append(sc.steps, sc.steps[len(sc.steps)-1])
	sc.valid++
	want.Duplicates++
	// 4. Reorder: 1060 arrives after 1061 and 1062.
	t1060 := sc.tus + P
	sc.tus += P
	sc.next(1061, ok)
	sc.next(1062, ok)
	sc.send(1060, t1060, 1, 45000, ok)
	want.GapEvents, want.Missing, want.InOrder = want.GapEvents+1, want.Missing+1, want.InOrder+1
	want.Reorders, want.Recovered = 1, 1
	// 5. Foreign traffic.
	good := wire.AppendPacket(nil, &wire.Packet{Seq: 1063, TUs: sc.tus + P})
	badMagic := append([]byte(nil), good...)
	badMagic[1] = 0
	badVersion := append([]byte(nil), good...)
	badVersion[2] = 2 // the version byte
	sc.junk([]byte("hello"))
	sc.junk(append(append([]byte(nil), good...), make([]byte, 64)...))
	sc.junk(badMagic)
	sc.junk(badVersion)
	want.DiscardSize, want.DiscardMagic, want.DiscardVersion = 2, 1, 1
	// 6. Invalid axes and faults.
	for seq := uint32(1063); seq < 1068; seq++ {
		sc.next(seq, ok&^wire.AzValid)
	}
	for seq := uint32(1068); seq < 1070; seq++ {
		sc.next(seq, ok&^wire.ElValid|wire.ElFault)
	}
	want.InOrder += 7
	want.AzInvalid, want.ElInvalid, want.ElFault = 5, 2, 2
	// 7. Frozen position for 15 packets, flagged DEGRADED.
	for seq := uint32(1070); seq < 1085; seq++ {
		sc.tus += P
		sc.send(seq, sc.tus, 123456, -1000, ok|wire.Degraded)
	}
	want.InOrder += 15
	want.FrozenEvents, want.Degraded = 1, 15
	// 8. Silence, then the stream resumes without losing a seq.
	sc.silence(5 * timeout / 2)
	for seq := uint32(1085); seq < 1095; seq++ {
		sc.next(seq, ok)
	}
	want.InOrder += 10
	want.Timeouts = 1
	// 9. Emitter restart: seq and t_us back.
	sc.tus = 1500
	sc.send(0, sc.tus, 0, 0, ok)
	for seq := uint32(1); seq < 10; seq++ {
		sc.next(seq, ok|wire.AzFault)
	}
	want.Restarts, want.InOrder, want.AzFault = 1, want.InOrder+9, 9
	// 10. Sequence jump backwards (t advancing), then forward.
	sc.next(3, ok)
	sc.next(4, ok)
	sc.next(100_004, ok)
	sc.next(100_005, ok)
	want.JumpsBack, want.InOrder = 1, want.InOrder+2
	want.GapEvents, want.Missing = want.GapEvents+1, want.Missing+99_999
	want.Packets = sc.valid
	want.Datagrams = sc.valid + 4

	rx, tx, dst := loopPair(t)
	m := NewMonitor(MonitorConfig{StreamTimeout: timeout})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sendErr := make(chan error, 1)
	go func() {
		for _, s := range sc.steps {
			if s.pause > 0 {
				time.Sleep(s.pause)
				continue
			}
			if _, err := tx.WriteToUDPAddrPort(s.data, dst); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- nil
	}()

	reports := 0
	err := Listen(ctx, rx, m, RunOptions{
		MaxPackets:     sc.valid,
		ReportInterval: 100 * time.Millisecond,
		OnReport: func(m *Monitor, now time.Time) {
			reports++
			_ = m.TakeIntervalPeriod()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-sendErr; err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("receiver did not get every packet: %+v", m.Snapshot())
	}
	// Discards after the last valid packet would be missed; there are none.
	got := m.Snapshot()
	checkCounts(t, got, want)
	if got.Sim != sc.valid || got.Last.Seq != 100_005 || got.TimedOut || got.Frozen {
		t.Errorf("sim %d last %d timedOut %v frozen %v", got.Sim, got.Last.Seq, got.TimedOut, got.Frozen)
	}
	if got.Period.MinUs != P || got.Period.MaxUs != P || got.Period.Count != want.InOrder {
		t.Errorf("period %+v", got.Period)
	}
	if reports == 0 {
		t.Error("OnReport never called")
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	rx, _, _ := loopPair(t)
	m := NewMonitor(MonitorConfig{StreamTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Listen(ctx, rx, m, RunOptions{}) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
}

func TestRunReturnsCloseError(t *testing.T) {
	rx, _, _ := loopPair(t)
	m := NewMonitor(MonitorConfig{})
	done := make(chan error, 1)
	go func() { done <- Listen(context.Background(), rx, m, RunOptions{}) }()
	time.Sleep(20 * time.Millisecond)
	rx.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("nil error after close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
}

func TestReadOneNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	rx, tx, dst := loopPair(t)
	r := NewReceiver(rx, NewMonitor(MonitorConfig{}))
	buf := make([]byte, 0, wire.PacketSize)
	seq := uint32(0)
	var err error
	n := testing.AllocsPerRun(1000, func() {
		seq++
		buf = wire.AppendPacket(buf[:0], &wire.Packet{Seq: seq, TUs: uint64(seq) * P})
		if _, err = tx.WriteToUDPAddrPort(buf, dst); err != nil {
			return
		}
		sinkClass, err = r.ReadOne()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("write+ReadOne: %v allocs", n)
	}
	if s := r.m.Snapshot(); s.Packets != 1001 || s.InOrder != 1000 {
		t.Fatalf("%+v", s)
	}
}
