package flatudp

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/client"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/flattest"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
func newSet() *metrics.Set  { return metrics.NewSet() }

// testSignals has every element width, the Trigger first and a cycle
// counter second: Trigger:uint8,Counter:uint32,U64:uint64,F64:float64,
// I16:int16[3],F32:float32.
func testSignals() []datasource.Signal {
	return []datasource.Signal{
		{Name: "Trigger", Type: datasource.Uint8},
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "U64", Type: datasource.Uint64},
		{Name: "F64", Type: datasource.Float64},
		{Name: "I16", Type: datasource.Int16, NumberOfDimensions: 1, NumberOfElements: 3},
		{Name: "F32", Type: datasource.Float32},
	}
}

// Raw values of cycle c, in the order DecodeRaw gives them (Trigger aside).
func rawU64(c uint32) uint64 { return 0xFEDCBA9876543210 ^ uint64(c)<<20 ^ uint64(c) }
func rawF64(c uint32) uint64 { return math.Float64bits(-math.Pi * float64(c) * 1e-300) }
func rawI16(c uint32, j int) uint64 {
	return uint64(int64(int16(-30000 + int(c)*7 + j)))
}
func rawF32(c uint32) uint64 { return uint64(math.Float32bits(float32(c) + 0.25)) }

// setCycle writes cycle c into signal memory (native little-endian).
func setCycle(s *Sender, c uint32, trig bool) {
	var tr byte
	if trig {
		tr = 1 + byte(c%200) // any non-zero value triggers
	}
	testenv.Must(s.GetSignalMemoryBuffer(0))[0] = tr
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(1)), c)
	binary.LittleEndian.PutUint64(testenv.Must(s.GetSignalMemoryBuffer(2)), rawU64(c))
	binary.LittleEndian.PutUint64(testenv.Must(s.GetSignalMemoryBuffer(3)), rawF64(c))
	i16 := testenv.Must(s.GetSignalMemoryBuffer(4))
	for j := range 3 {
		binary.LittleEndian.PutUint16(i16[2*j:], uint16(rawI16(c, j)))
	}
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(5)), uint32(rawF32(c)))
}

// checkCycle decodes a datagram bit-exact and returns its cycle counter.
func checkCycle(t testing.TB, l *wire.Layout, b []byte, order wire.ByteOrder, raw []uint64) uint32 {
	t.Helper()
	if err := l.DecodeRaw(raw, b, order); err != nil {
		t.Fatal(err)
	}
	c := uint32(raw[1])
	want := []uint64{raw[0], uint64(c), rawU64(c), rawF64(c), rawI16(c, 0), rawI16(c, 1), rawI16(c, 2), rawF32(c)}
	if !slices.Equal(raw, want) {
		t.Fatalf("cycle %d decoded %x, want %x", c, raw, want)
	}
	return c
}

type harness struct {
	t     testing.TB
	s     *Sender
	r     *client.Receiver
	conn  *net.UDPConn // r's socket
	l     *wire.Layout // r's layout
	order wire.ByteOrder
	raw   []uint64
}

// start builds a Sender to a loopback receiver, with cfg's mode, buffers
// and windows, and starts it. hook, if set, runs before every drain.
func start(t testing.TB, cfg Config, hook func()) *harness {
	t.Helper()
	conn, err := listenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadBuffer(4 << 20); err != nil {
		t.Fatal(err)
	}
	if cfg.Name == "" {
		cfg.Name = "Flat"
	}
	if cfg.Signals == nil {
		cfg.Signals = testSignals()
	}
	cfg.Address = "127.0.0.1"
	cfg.Port = conn.LocalAddr().(*net.UDPAddr).Port
	return startTo(t, cfg, conn, hook)
}

func startTo(t testing.TB, cfg Config, conn *net.UDPConn, hook func()) *harness {
	t.Helper()
	s, err := New(cfg, newSet(), discard())
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	s.beforeDrain = hook
	// The receiver's layout comes from the printed signals string.
	l, err := wire.ParseLayout(s.SignalsString())
	if err != nil {
		t.Fatal(err)
	}
	r := client.NewReceiver(conn, l)
	t.Cleanup(func() { r.Close() })
	dstest.Start(t, s)
	return &harness{t: t, s: s, r: r, conn: conn, l: l, order: cfg.ByteOrder, raw: make([]uint64, l.TotalElements())}
}

// collect reads want datagrams (waiting up to 10 s), then any extra ones
// that arrive within 30 ms, and returns their cycle counters.
func (h *harness) collect(want int) []uint32 {
	h.t.Helper()
	var got []uint32
	for {
		wait := 10 * time.Second
		if len(got) >= want {
			wait = 30 * time.Millisecond
		}
		h.conn.SetReadDeadline(time.Now().Add(wait))
		b, _, err := h.r.Read()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return got
			}
			h.t.Fatal(err)
		}
		got = append(got, checkCycle(h.t, h.l, b, h.order, h.raw))
	}
}

// sendOne sends the cycle in signal memory and returns its datagram.
func (h *harness) sendOne() []byte {
	h.t.Helper()
	if err := h.s.Synchronise(); err != nil {
		h.t.Fatal(err)
	}
	h.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, _, err := h.r.Read()
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// waitDrained waits until the sender thread has seen every queued cycle.
func (h *harness) waitDrained() {
	h.t.Helper()
	r := h.s.ring
	deadline := time.Now().Add(20 * time.Second)
	for {
		hd := r.published()
		if r.tail.Load() == hd-min(hd, h.s.keep) {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("sender thread stuck: head %d tail %d", hd, r.tail.Load())
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func counts(cs []int) []uint32 {
	out := make([]uint32, len(cs))
	for i, c := range cs {
		out[i] = uint32(c)
	}
	return out
}

// TestRealTimeThreadEveryCycle sends N cycles and receives N datagrams in
// order, bit-exact, in both byte orders. The driver keeps at most 128
// cycles ahead of the receiver, so the socket buffer never overflows.
func TestRealTimeThreadEveryCycle(t *testing.T) {
	for _, order := range []wire.ByteOrder{wire.Little, wire.Big} {
		t.Run(order.String(), func(t *testing.T) {
			const cycles = 2000
			h := start(t, Config{ExecutionMode: realTimeThread, NumberOfBuffers: 256, ByteOrder: order}, nil)
			var received atomic.Uint32
			var got []uint32
			var rerr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				raw := make([]uint64, h.l.TotalElements())
				h.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
				for len(got) < cycles {
					b, _, err := h.r.Read()
					if err != nil {
						rerr = err
						return
					}
					if err := h.l.DecodeRaw(raw, b, order); err != nil {
						rerr = err
						return
					}
					got = append(got, uint32(raw[1]))
					if uint32(raw[1]) == 17 { // one full bit-exact check per order
						checkCycle(t, h.l, b, order, raw)
					}
					received.Add(1)
				}
			}()
			for c := uint32(1); c <= cycles; c++ {
				setCycle(h.s, c, false)
				if err := h.s.Synchronise(); err != nil {
					t.Fatalf("cycle %d: %v", c, err)
				}
				for c-received.Load() > 128 {
					time.Sleep(20 * time.Microsecond)
				}
			}
			<-done
			if rerr != nil {
				t.Fatal(rerr)
			}
			h.waitDrained() // the sender counts a datagram after the receiver may have it
			for i, c := range got {
				if c != uint32(i+1) {
					t.Fatalf("datagram %d carries cycle %d", i, c)
				}
			}
			st := h.s.snapshot()
			if st.CyclesQueued != cycles || st.DatagramsSent != cycles || st.Overflows != 0 || st.SendErrors != 0 ||
				st.BytesSent != uint64(cycles*h.s.layout.Size) || st.ExecutionMode != "RealTimeThread" || st.ByteOrder != order.String() {
				t.Errorf("status %+v", st)
			}
			if st.Local == "" || !st.Running || st.Class != "FlatUDP" {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// TestBitExact sends one cycle of each byte order and checks every byte of
// the datagram against a hand-built one.
func TestBitExact(t *testing.T) {
	for _, order := range []wire.ByteOrder{wire.Little, wire.Big} {
		h := start(t, Config{ExecutionMode: realTimeThread, ByteOrder: order}, nil)
		setCycle(h.s, 77, true)
		b := h.sendOne()
		var e binary.AppendByteOrder = binary.LittleEndian
		if order == wire.Big {
			e = binary.BigEndian
		}
		want := []byte{1 + 77}
		want = e.AppendUint32(want, 77)
		want = e.AppendUint64(want, rawU64(77))
		want = e.AppendUint64(want, rawF64(77))
		for j := range 3 {
			want = e.AppendUint16(want, uint16(rawI16(77, j)))
		}
		want = e.AppendUint32(want, uint32(rawF32(77)))
		if !slices.Equal(b, want) || len(b) != 1+4+8+8+6+4 {
			t.Errorf("%v: datagram\n% x\nwant\n% x", order, b, want)
		}
	}
}

// TestTriggerWindows drives trigger patterns through the real sender and
// checks exactly which cycles arrive, once each and in order: against the
// reference model, at the edges (first cycle, overlapping windows,
// consecutive triggers, the last cycle, windows across the ring's wrap).
// Paced runs let the sender drain after every cycle; burst runs use a ring
// as long as the run, so no cycle can be refused whatever the timing.
func TestTriggerWindows(t *testing.T) {
	for _, tc := range []struct {
		name            string
		pre, post, bufs int
		n               int
		at              []int
	}{
		{"first cycle", 3, 2, 8, 12, []int{0}},
		{"second cycle", 3, 1, 8, 12, []int{1, 11}},
		{"overlapping", 2, 3, 8, 20, []int{5, 8}},
		{"consecutive", 2, 2, 8, 20, []int{10, 11, 12}},
		{"last cycle", 2, 5, 8, 10, []int{9}},
		{"ring wrap minimal ring", 3, 2, 4, 40, []int{3, 4, 7, 13, 19, 23, 33, 39}},
		{"ring wrap", 4, 3, 6, 60, []int{5, 6, 17, 18, 29, 35, 41, 47, 50, 59}},
		{"no windows", 0, 0, 1, 10, []int{0, 4, 5, 9}},
		{"long windows", 9, 9, 10, 100, []int{30, 60, 61, 99}},
	} {
		for _, order := range []wire.ByteOrder{wire.Little, wire.Big} {
			for _, burst := range []bool{false, true} {
				name := tc.name + "/" + order.String()
				if burst {
					name += "/burst"
				}
				t.Run(name, func(t *testing.T) {
					bufs := tc.bufs
					if burst {
						bufs = tc.n + 1
					}
					h := start(t, Config{NumberOfPreTriggers: tc.pre, NumberOfPostTriggers: tc.post, NumberOfBuffers: bufs, ByteOrder: order}, nil)
					trig := trigAt(tc.n, tc.at...)
					for c := range tc.n {
						setCycle(h.s, uint32(c), trig[c])
						if err := h.s.Synchronise(); err != nil {
							t.Fatal(err)
						}
						if !burst {
							h.waitDrained()
						}
					}
					h.waitDrained()
					if err := h.s.Close(); err != nil {
						t.Fatal(err)
					}
					want := counts(windows(trig, tc.pre, tc.post))
					got := h.collect(len(want))
					if !slices.Equal(got, want) {
						t.Errorf("received %v\nwant     %v", got, want)
					}
					skipped := 0 // released unsent: all but the last pre cycles
					for k := range tc.n - tc.pre {
						if !slices.Contains(want, uint32(k)) {
							skipped++
						}
					}
					st := h.s.snapshot()
					if st.Overflows != 0 || st.Triggers != uint64(len(tc.at)) || st.DatagramsSent != uint64(len(want)) ||
						st.CyclesQueued != uint64(tc.n) || h.s.m.skipped.Get() != uint64(skipped) {
						t.Errorf("status %+v skipped %d, want %d", st, h.s.m.skipped.Get(), skipped)
					}
				})
			}
		}
	}
}

// holder stalls the sender thread on demand, before a drain.
type holder struct {
	hold    atomic.Bool
	held    chan struct{}
	release chan struct{}
}

func newHolder() *holder {
	return &holder{held: make(chan struct{}, 1), release: make(chan struct{})}
}

func (hd *holder) hook() {
	if hd.hold.Load() {
		hd.held <- struct{}{}
		<-hd.release
		hd.hold.Store(false)
	}
}

// stall holds the sender thread and returns once it is held.
func (hd *holder) stall(h *harness) {
	hd.hold.Store(true)
	h.s.sem.Post()
	select {
	case <-hd.held:
	case <-time.After(20 * time.Second):
		h.t.Fatal("sender thread never reached the hook")
	}
}

// TestRealTimeThreadOverflow stalls the sender with a ring of 4, overflows
// it, and checks that the newest cycles were refused and counted, that the
// queued ones are sent, and that the sender recovers.
func TestRealTimeThreadOverflow(t *testing.T) {
	hd := newHolder()
	h := start(t, Config{ExecutionMode: realTimeThread, NumberOfBuffers: 4}, hd.hook)
	hd.stall(h)
	var refused int
	for c := uint32(1); c <= 10; c++ {
		setCycle(h.s, c, false)
		err := h.s.Synchronise()
		switch {
		case c <= 4 && err != nil:
			t.Fatalf("cycle %d: %v", c, err)
		case c > 4 && !errors.Is(err, datasource.ErrCycleSkipped):
			t.Fatalf("cycle %d: %v, want errOverflow", c, err)
		case err != nil:
			refused++
		}
	}
	if st := h.s.snapshot(); st.Overflows != 6 || st.CyclesQueued != 4 || st.DatagramsSent != 0 {
		t.Fatalf("while stalled: %+v", st)
	}
	close(hd.release)
	h.waitDrained()
	for c := uint32(11); c <= 110; c++ {
		setCycle(h.s, c, false)
		if err := h.s.Synchronise(); err != nil {
			t.Fatalf("cycle %d after recovery: %v", c, err)
		}
		h.waitDrained()
	}
	want := []uint32{1, 2, 3, 4}
	for c := uint32(11); c <= 110; c++ {
		want = append(want, c)
	}
	if got := h.collect(len(want)); !slices.Equal(got, want) {
		t.Errorf("received %v\nwant     %v", got, want)
	}
	if st := h.s.snapshot(); st.Overflows != 6 || st.DatagramsSent != 104 || st.CyclesQueued != 104 || refused != 6 {
		t.Errorf("after recovery: %+v", st)
	}
}

// TestIndependentThreadOverrun stalls the sender in IndependentThread mode
// until the ring overruns (MARTe2's "Buffer overrun"), then checks that the
// overrun was counted without failing the cycle, that the queued trigger
// window is sent, and that later triggers are sent as usual.
func TestIndependentThreadOverrun(t *testing.T) {
	hd := newHolder()
	h := start(t, Config{NumberOfPreTriggers: 2, NumberOfPostTriggers: 1, NumberOfBuffers: 5}, hd.hook)
	hd.stall(h)
	// Cycles 0..4 fill the ring (trigger at 3); 5..19 are refused,
	// including the trigger at 15.
	for c := uint32(0); c < 20; c++ {
		setCycle(h.s, c, c == 3 || c == 15)
		if err := h.s.Synchronise(); err != nil {
			t.Fatalf("cycle %d: %v (an overrun must not fail the cycle)", c, err)
		}
	}
	if st := h.s.snapshot(); st.Overflows != 15 || st.CyclesQueued != 5 {
		t.Fatalf("while stalled: %+v", st)
	}
	close(hd.release)
	h.waitDrained()
	for c := uint32(20); c < 60; c++ {
		setCycle(h.s, c, c == 30 || c == 50 || c == 51)
		if err := h.s.Synchronise(); err != nil {
			t.Fatal(err)
		}
		h.waitDrained()
	}
	want := []uint32{1, 2, 3, 4, 28, 29, 30, 31, 48, 49, 50, 51, 52}
	got := h.collect(len(want))
	if !slices.Equal(got, want) {
		t.Errorf("received %v\nwant     %v", got, want)
	}
	if st := h.s.snapshot(); st.Overflows != 15 || st.Triggers != 4 || st.DatagramsSent != uint64(len(want)) {
		t.Errorf("after recovery: %+v", st)
	}
}

// TestRepeatedOverruns overruns a small ring again and again (a producer
// a little faster than the sender thread wakes up) and checks the sender
// never sticks: what it sent is in order and unique, every cycle is either
// queued or counted, and afterwards a trigger is still sent.
func TestRepeatedOverruns(t *testing.T) {
	h := start(t, Config{NumberOfPreTriggers: 1, NumberOfPostTriggers: 1, NumberOfBuffers: 3}, nil)
	const cycles = 20000
	var wg sync.WaitGroup
	wg.Go(func() {
		for c := uint32(0); c < cycles; c++ {
			setCycle(h.s, c, c%7 == 0)
			h.s.Synchronise()
			for t0 := time.Now(); time.Since(t0) < 2*time.Microsecond; {
			}
		}
	})
	var storm []uint32
	h.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		b, _, err := h.r.Read()
		if err != nil {
			break
		}
		h.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		storm = append(storm, checkCycle(t, h.l, b, h.order, h.raw))
	}
	wg.Wait()
	h.waitDrained()
	storm = append(storm, h.collect(0)...)
	for i := 1; i < len(storm); i++ {
		if storm[i] <= storm[i-1] {
			t.Fatalf("datagram %d carries cycle %d after %d", i, storm[i], storm[i-1])
		}
	}
	q, o := h.s.m.queued.Get(), h.s.m.overflows.Get()
	if q+o != cycles {
		t.Errorf("queued %d + overflows %d != %d", q, o, cycles)
	}
	for c := uint32(cycles); c < cycles+3; c++ {
		setCycle(h.s, c, c == cycles+1)
		h.s.Synchronise()
		h.waitDrained()
	}
	if got := h.collect(3); !slices.Equal(got, []uint32{cycles, cycles + 1, cycles + 2}) {
		t.Errorf("after the storm received %v", got)
	}
	t.Logf("storm: %d queued, %d refused, %d sent, %d received", q, o, h.s.m.datagrams.Get()-3, len(storm))
}

// TestMulticastLoopback sends to a group joined on the loopback interface,
// named by its address and by its name. It runs wherever multicast on
// loopback works (flattest.Group skips, saying why, elsewhere).
func TestMulticastLoopback(t *testing.T) {
	group := flattest.Group(t)
	for _, iface := range []string{"127.0.0.1", "lo"} {
		t.Run(iface, func(t *testing.T) {
			conn, err := client.ListenMulticast(group, iface, 0)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Name: "Flat", Address: group, Port: conn.LocalAddr().(*net.UDPAddr).Port,
				ExecutionMode: realTimeThread, Interface: iface, TTL: 1, Loopback: true,
				ByteOrder: wire.Big, Signals: testSignals()}
			h := startTo(t, cfg, conn, nil)
			h.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			setCycle(h.s, 5, false)
			if err := h.s.Synchronise(); err != nil {
				t.Fatal(err)
			}
			b, _, err := h.r.Read()
			if err != nil {
				t.Fatalf("no multicast datagram arrived on %s via %s (sent %d, send errors %d): %v",
					group, iface, h.s.m.datagrams.Get(), h.s.m.errors.Get(), err)
			}
			if v := checkCycle(t, h.l, b, wire.Big, h.raw); v != 5 {
				t.Errorf("cycle %d", v)
			}
			if a := h.s.destination(); a.Addr().String() != group {
				t.Errorf("destination %v", a)
			}
		})
	}
}

// TestReceiverGoneAndBack sends to a port nobody listens on: the ICMP
// port unreachable shows in the gauge, the status and one warning, and
// nothing stops the sender; once a receiver listens there again and no
// ICMP comes for the hold time, the gauge clears with one line.
func TestReceiverGoneAndBack(t *testing.T) {
	defer func(h time.Duration) { unreachableHold = h }(unreachableHold)
	unreachableHold = 200 * time.Millisecond
	conn, err := listenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := conn.LocalAddr().(*net.UDPAddr).Port
	conn.Close() // nobody listens there now
	var log testenv.Buffer
	s, err := New(Config{Name: "Flat", Address: "127.0.0.1", Port: port, ExecutionMode: realTimeThread, Signals: testSignals()},
		newSet(), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	c := uint32(0)
	cycle := func() {
		setCycle(s, c, false)
		if err := s.Synchronise(); err != nil {
			t.Fatal(err)
		}
		c++
		time.Sleep(time.Millisecond)
	}
	for !s.snapshot().DestinationUnreachable {
		if cycle(); c > 5000 {
			t.Fatal("no ICMP port unreachable seen")
		}
	}
	back, err := listenUDP(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Skipf("port %d taken meanwhile: %v", port, err)
	}
	defer back.Close()
	for s.snapshot().DestinationUnreachable {
		if cycle(); c > 10000 {
			t.Fatal("still unreachable with a receiver listening")
		}
	}
	st := s.snapshot()
	if st.CyclesSent != uint64(c) && st.CyclesSent+1 != uint64(c) || s.m.unreachables.Get() == 0 {
		t.Errorf("status %+v, port unreachables %d", st, s.m.unreachables.Get())
	}
	// The sender clears the flag before it logs the line.
	testenv.Eventually(t, "the reachable-again line", 5*time.Second, func() bool {
		return strings.Contains(log.String(), "destination reachable again")
	})
	out := log.String()
	if strings.Count(out, "destination unreachable") != 1 || strings.Count(out, "destination reachable again") != 1 {
		t.Errorf("log:\n%s", out)
	}
}

// TestIPv6Loopback sends to ::1 (skipped where the sandbox has no IPv6).
func TestIPv6Loopback(t *testing.T) {
	conn, err := listenUDP("[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	cfg := Config{Name: "Flat", Address: "::1", Port: conn.LocalAddr().(*net.UDPAddr).Port,
		ExecutionMode: realTimeThread, Signals: testSignals()}
	h := startTo(t, cfg, conn, nil)
	setCycle(h.s, 42, false)
	if err := h.s.Synchronise(); err != nil {
		t.Fatal(err)
	}
	if got := h.collect(1); !slices.Equal(got, []uint32{42}) {
		t.Errorf("received %v", got)
	}
	if a := h.s.localAddr(); !a.Addr().Is6() {
		t.Errorf("local address %v", a)
	}
}

func TestLifecycleErrors(t *testing.T) {
	c := trigCfg()
	s, err := New(c, newSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronise(); err == nil {
		t.Error("Synchronise before AllocateMemory succeeded")
	}
	if a := s.localAddr(); a.IsValid() {
		t.Errorf("LocalAddr before start: %v", a)
	}
	if err := s.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	if s.Name() != "Flat" || len(s.Signals()) != 3 || s.mem.Size() != 69 || s.layout.Size != 69 {
		t.Error("accessors")
	}
}

// newProducer is the Sender of the lifecycle tests: one name, ms as given
// (nil: its own), no logger.
func newProducer(tb testing.TB, ms *metrics.Set) dstest.Producer {
	s, err := New(trigCfg(), ms, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestMisuseLifecycle(t *testing.T) {
	dstest.Misuse(t, newProducer)
	dstest.Opener(t, func() datasource.DataSource { return newProducer(t, nil) })
}

func TestRestartSameNameSameMetrics(t *testing.T) {
	dstest.Restart(t, newProducer, 1000)
}

// TestNetworkWakeupsCounted checks that a Synchronise that finds the
// sender thread parked is counted in network_wakeups_total and /status,
// and that /status says the ring's length and what its queue covers.
func TestNetworkWakeupsCounted(t *testing.T) {
	h := start(t, Config{ExecutionMode: realTimeThread, NetworkThread: datasource.NetworkThread{NetworkWait: netthread.WaitPark, CyclePeriod: time.Millisecond}}, nil)
	if st := h.s.snapshot(); st.Buffers != 500 || !st.BuffersAuto || st.QueueCoversMs != 500 || st.NetworkWait != "park" {
		t.Errorf("status %+v", st)
	}
	// Each cycle is sent at once and the thread parks again: sooner or
	// later a Synchronise finds it parked, whatever the load.
	deadline := time.Now().Add(10 * time.Second)
	for h.s.m.wakeups.Get() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no Synchronise woke the parked sender thread in 10 s")
		}
		if err := h.s.Synchronise(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if st := h.s.snapshot(); st.NetworkWakeups == 0 {
		t.Errorf("status: wakeups %d", st.NetworkWakeups)
	}
}

// TestEveryDatagramGoesOutWithNoReceiver sends to a port nobody listens
// on. Each datagram draws an ICMP port unreachable, which fails the next
// send on the socket; the sender sends that datagram again, so every
// cycle goes on the wire, as from MARTe2's UDPSender, and a receiver
// that starts late (here a capture of the loopback traffic) gets every
// cycle from its first. The ICMP errors are counted, not the sends.
func TestEveryDatagramGoesOutWithNoReceiver(t *testing.T) {
	probe := testenv.Loopback(t)
	port := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close() // nobody listens there now
	s, err := New(Config{Name: "Flat", Address: "127.0.0.1", Port: port, ExecutionMode: realTimeThread, Signals: testSignals()}, newSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	c := uint32(0)
	cycles := func(n int) {
		for range n {
			setCycle(s, c, false)
			if err := s.Synchronise(); err != nil {
				t.Fatal(err)
			}
			c++
			time.Sleep(time.Millisecond)
		}
	}
	cycles(100) // the ICMP errors come back from the first datagram on
	capture := testenv.CaptureUDP(t, port)
	cycles(300)
	// The last 300 cycles went out after the capture began; wait until
	// the capture has read them all, the last one included.
	testenv.Eventually(t, "the capture of the last 300 cycles", 20*time.Second, func() bool {
		got := capture.Captured()
		return len(got) >= 300 && binary.LittleEndian.Uint32(got[len(got)-1][1:]) == c-1
	})
	got, err := capture.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 300 {
		t.Fatalf("captured %d datagrams of the last 300 cycles", len(got))
	}
	first := binary.LittleEndian.Uint32(got[0][1:])
	for i, b := range got {
		if len(b) != s.layout.Size {
			t.Fatalf("datagram %d: %d bytes", i, len(b))
		}
		if v := binary.LittleEndian.Uint32(b[1:]); v != first+uint32(i) {
			t.Fatalf("datagram %d carries cycle %d, want %d: a cycle did not go out", i, v, first+uint32(i))
		}
	}
	if last := first + uint32(len(got)) - 1; last != c-1 {
		t.Errorf("last cycle captured %d, sent %d", last, c-1)
	}
	st := s.snapshot()
	if st.SendErrors != 0 || st.DatagramsSent != uint64(c) || s.m.unreachables.Get() == 0 {
		t.Errorf("send errors %d, datagrams sent %d of %d cycles, ICMP port unreachable %d", st.SendErrors, st.DatagramsSent, c, s.m.unreachables.Get())
	}
}

// listenUDP opens a UDP socket bound to addr.
func listenUDP(addr string) (*net.UDPConn, error) {
	a, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	return net.ListenUDP("udp", a)
}
