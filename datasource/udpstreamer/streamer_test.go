package udpstreamer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/quant"
	"github.com/streamerd/streamerd/rt/cpu"
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// start builds, allocates and starts a Streamer on a free loopback port.
func start(t testing.TB, cfg Config) *Streamer { return startWith(t, cfg, discard()) }

// startWith is start with a logger.
func startWith(t testing.TB, cfg Config, log *slog.Logger) *Streamer {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "Streamer"
	}
	cfg.Address = "127.0.0.1"
	s, err := New(cfg, metrics.NewSet(), log)
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	return s
}

// rawClient is a protocol-level client built from the codec alone.
type rawClient struct {
	t     testing.TB
	conn  *net.UDPConn
	srv   netip.AddrPort
	cfg   *frame.Reassembler
	data  *frame.Reassembler
	gate  frame.SequenceGate
	infos []frame.SignalInfo
	buf   []byte
}

func newRawClient(t testing.TB, srv netip.AddrPort) *rawClient {
	t.Helper()
	conn := testenv.Loopback(t)
	conn.SetReadBuffer(8 << 20)
	t.Cleanup(func() { conn.Close() })
	cfg, err := frame.NewReassembler(frame.ReassemblerConfig{Type: frame.Config, MaxPayload: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return &rawClient{t: t, conn: conn, srv: srv, cfg: cfg, buf: make([]byte, 65536)}
}

// connected returns a new rawClient that has connected to s.
func connected(t testing.TB, s *Streamer) *rawClient {
	t.Helper()
	c := newRawClient(t, s.LocalAddr())
	c.connect()
	return c
}

func (c *rawClient) send(typ frame.PacketType) {
	c.t.Helper()
	b := frame.AppendHeader(nil, frame.Header{Type: typ, TotalFragments: 1})
	if _, err := c.conn.WriteToUDPAddrPort(b, c.srv); err != nil {
		c.t.Fatal(err)
	}
}

// connect sends CONNECT until a whole CONFIG arrives, and prepares DATA
// reassembly for it.
func (c *rawClient) connect() []frame.SignalInfo {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	c.cfg.Reset()
	for time.Now().Before(deadline) {
		c.send(frame.Connect)
		p, _, err := c.read(c.cfg, 300*time.Millisecond)
		if err != nil {
			continue
		}
		infos, err := frame.ParseConfig(p)
		if err != nil {
			c.t.Fatalf("CONFIG: %v", err)
		}
		c.infos = infos
		c.data, err = frame.NewReassembler(frame.ReassemblerConfig{Type: frame.Data, MaxPayload: frame.DataPayloadSize(infos), InFlight: 8})
		if err != nil {
			c.t.Fatal(err)
		}
		c.data.SetExpectedPayload(frame.DataPayloadSize(infos))
		c.gate.Reset()
		return infos
	}
	c.t.Fatal("no CONFIG")
	return nil
}

// read returns the next update r completes within timeout, and its counter.
func (c *rawClient) read(r *frame.Reassembler, timeout time.Duration) (payload []byte, counter uint32, err error) {
	c.conn.SetReadDeadline(time.Now().Add(timeout))
	for {
		n, _, err := c.conn.ReadFromUDPAddrPort(c.buf)
		if err != nil {
			return nil, 0, err
		}
		if p, ctr, err := r.AddDatagram(c.buf[:n]); err == nil && p != nil {
			return p, ctr, nil
		}
	}
}

// next returns the next DATA payload accepted by the gate, its counter and
// the updates lost before it.
func (c *rawClient) next(timeout time.Duration) (payload []byte, counter, lost uint32, err error) {
	for {
		p, ctr, err := c.read(c.data, timeout)
		if err != nil {
			return nil, 0, 0, err
		}
		if l, ok := c.gate.Accept(ctr); ok {
			return p, ctr, l, nil
		}
	}
}

// expect reads n DATA updates, failing the test on a timeout.
func (c *rawClient) expect(n int) {
	c.t.Helper()
	for range n {
		if _, _, _, err := c.next(5 * time.Second); err != nil {
			c.t.Fatal(err)
		}
	}
}

// driver calls Synchronise every period with signal 0 (uint32) counting up.
func driver(s *Streamer, period time.Duration) (stop func() uint32) {
	var done atomic.Bool
	var wg sync.WaitGroup
	var n uint32
	wg.Go(func() {
		for !done.Load() {
			n++
			binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), n)
			s.Synchronise()
			time.Sleep(period)
		}
	})
	return func() uint32 { done.Store(true); wg.Wait(); return n }
}

// drive runs driver(s, period) until t ends.
func drive(t testing.TB, s *Streamer, period time.Duration) {
	stop := driver(s, period)
	t.Cleanup(func() { stop() })
}

func scalarCfg() Config {
	return Config{Signals: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "V", Type: datasource.Float32, Unit: "V", RangeMin: -10, RangeMax: 10, QuantizedType: quant.Uint16},
	}}
}

func TestConnectConfigAndData(t *testing.T) {
	s := start(t, scalarCfg())
	c := newRawClient(t, s.LocalAddr())
	infos := c.connect()
	if len(infos) != 2 || infos[0].Name != "Counter" || infos[1].Quant != quant.Uint16 || infos[1].Unit != "V" || infos[1].RangeMax != 10 {
		t.Fatalf("CONFIG %+v", infos)
	}
	drive(t, s, time.Millisecond)
	var prev uint32
	for i := 0; i < 200; i++ {
		p, ctr, lost, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && ctr != 0 {
			t.Errorf("first DATA counter %d, want 0", ctr)
		}
		if len(p) != 8+4+2 {
			t.Fatalf("payload %d bytes", len(p))
		}
		v := binary.LittleEndian.Uint32(p[8:])
		if i > 0 && v <= prev {
			t.Fatalf("value went from %d to %d", prev, v)
		}
		prev = v
		_ = lost
	}
}

func TestReconnectFromNewPortGetsConfigAndFreshCounter(t *testing.T) {
	s := start(t, scalarCfg())
	drive(t, s, time.Millisecond)
	a := connected(t, s)
	a.expect(20)
	b := connected(t, s)
	_, ctr, _, err := b.next(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if ctr > 2 {
		t.Errorf("new session's first counter %d, want about 0", ctr)
	}
	// a no longer receives: drain what was in flight, then expect silence.
	a.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	for {
		if _, _, err := a.conn.ReadFromUDPAddrPort(a.buf); err != nil {
			break
		}
	}
	if _, _, _, err := a.next(100 * time.Millisecond); err == nil {
		t.Error("replaced client still receives DATA")
	}
	if got := s.snapshot(); !got.Connected || got.Client != b.conn.LocalAddr().String() {
		t.Errorf("status %+v", got)
	}
}

func TestDisconnectOnlyFromClient(t *testing.T) {
	s := start(t, scalarCfg())
	drive(t, s, time.Millisecond)
	c := connected(t, s)
	stranger := newRawClient(t, s.LocalAddr())
	stranger.send(frame.Disconnect)
	waitFor(t, func() bool { return s.m.strangerDisconnects.Get() == 1 })
	for i := 0; i < 10; i++ {
		if _, _, _, err := c.next(5 * time.Second); err != nil {
			t.Fatalf("stream stopped after a stranger's DISCONNECT: %v", err)
		}
	}
	c.send(frame.Disconnect)
	waitFor(t, func() bool { return !s.snapshot().Connected })
	if s.m.disconnects.Get() != 1 {
		t.Errorf("disconnects %d", s.m.disconnects.Get())
	}
}

func TestAllowedClientsRefusesOthers(t *testing.T) {
	cfg := scalarCfg()
	cfg.AllowedClients = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	s := start(t, cfg)
	// The Streamer keeps its own copy: opening the caller's slice to all
	// changes nothing.
	cfg.AllowedClients[0] = netip.MustParsePrefix("0.0.0.0/0")
	c := newRawClient(t, s.LocalAddr())
	c.send(frame.Connect)
	waitFor(t, func() bool { return s.m.refused.Get() == 1 })
	if s.snapshot().Connected {
		t.Error("refused client connected")
	}
	c.conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, _, err := c.conn.ReadFromUDPAddrPort(c.buf); err == nil {
		t.Error("refused client got an answer")
	}
}

func TestGarbageChangesNothingForTheClient(t *testing.T) {
	s := start(t, scalarCfg())
	drive(t, s, time.Millisecond)
	c := connected(t, s)
	g := newRawClient(t, s.LocalAddr())
	hdr := func(h frame.Header) []byte { return frame.AppendHeader(nil, h) }
	lying := hdr(frame.Header{Type: frame.Connect, TotalFragments: 1, PayloadBytes: 50})
	magicDg := hdr(frame.Header{Type: frame.Connect, TotalFragments: 1})
	magicDg[0] ^= 0xFF
	typeDg := hdr(frame.Header{Type: frame.Connect, TotalFragments: 1})
	typeDg[4] = 9
	garbage := [][]byte{
		{}, {1}, bytes.Repeat([]byte{0xFF}, 16), magicDg, typeDg, lying,
		hdr(frame.Header{Type: frame.Connect, TotalFragments: 0}),
		hdr(frame.Header{Type: frame.Data, TotalFragments: 1}),
		hdr(frame.Header{Type: frame.Config, TotalFragments: 1}),
		hdr(frame.Header{Type: frame.Ack, TotalFragments: 1}),
		bytes.Repeat([]byte{0x55}, 65000),
	}
	for round := 0; round < 20; round++ {
		for _, b := range garbage {
			g.conn.WriteToUDPAddrPort(b, s.LocalAddr())
		}
		time.Sleep(time.Millisecond) // let the server drain: this tests handling, not loss
	}
	waitFor(t, func() bool { return s.m.acks.Get() > 0 && s.m.bad[badType].Get() > 0 })
	var prevCtr uint32
	for i := 0; i < 50; i++ {
		_, ctr, _, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && ctr != prevCtr+1 {
			// loopback may drop under load; the session itself must not restart
			if ctr < prevCtr {
				t.Fatalf("counter restarted: %d after %d", ctr, prevCtr)
			}
		}
		prevCtr = ctr
	}
	if got := s.snapshot().Client; got != c.conn.LocalAddr().String() {
		t.Errorf("client changed to %s", got)
	}
	m := s.m
	for name, got := range map[string]uint64{
		"short": m.bad[badShort].Get(), "magic": m.bad[badMagic].Get(), "type": m.bad[badType].Get(), "fragment": m.bad[badFragment].Get(), "payload": m.bad[badPayloadLength].Get(),
	} {
		if got == 0 {
			t.Errorf("no %s drops counted", name)
		}
	}
}

// TestVanishedClientEndsSession closes a connected client's socket: the
// kernel answers the next DATA with ICMP port unreachable, the session ends
// (counted, logged once), the cycles are counted without a client, and the
// next client is served.
func TestVanishedClientEndsSession(t *testing.T) {
	s, log := startLogged(t, scalarCfg())
	drive(t, s, 500*time.Microsecond)
	gone := connected(t, s)
	gone.conn.Close() // the kernel now answers with ICMP port unreachable
	waitFor(t, func() bool { return s.m.clientsUnreachable.Get() == 1 && !s.snapshot().Connected })
	before := s.m.noClient.Get()
	waitFor(t, func() bool { return s.m.noClient.Get() > before+20 })
	if n := strings.Count(log.String(), "unreachable (ICMP port unreachable)"); n != 1 {
		t.Errorf("%d log lines on the vanished client:\n%s", n, log.String())
	}
	c := connected(t, s)
	c.expect(20)
	if s.m.icmpUnreachable.Get() == 0 || s.m.clientsUnreachable.Get() != 1 {
		t.Errorf("ICMP port unreachable %d, clients unreachable %d", s.m.icmpUnreachable.Get(), s.m.clientsUnreachable.Get())
	}
}

// TestVanishedClientOfADualStackServer: on a server bound to every
// address (Address "", the default: a dual-stack socket), an IPv4 client
// that vanishes ends its session too. The ICMP error names it as IPv4 and
// the session as ::ffff:a.b.c.d; before, the two never matched and the
// server sent to the vanished client until another connected.
func TestVanishedClientOfADualStackServer(t *testing.T) {
	cfg := scalarCfg()
	cfg.Name = "Streamer"
	s, err := New(cfg, metrics.NewSet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	if a := s.LocalAddr().Addr(); !a.Is6() || !a.IsUnspecified() {
		t.Skipf("bound to %v: no dual-stack socket here", a)
	}
	drive(t, s, 500*time.Microsecond)
	gone := newRawClient(t, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), s.LocalAddr().Port()))
	gone.connect()
	if c := s.snapshot().Client; !strings.HasPrefix(c, "[::ffff:127.0.0.1]:") {
		t.Fatalf("session client %s, want an IPv4-mapped address", c)
	}
	gone.conn.Close()
	waitFor(t, func() bool { return s.m.clientsUnreachable.Get() == 1 && !s.snapshot().Connected })
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLatestValueWinsAndSkipsAreCounted(t *testing.T) {
	cfg := scalarCfg()
	cfg.HandOffDepth = 1 // the protocol's hand-off
	s, stall := stalledStreamer(t, cfg)
	c := connected(t, s)

	const n = 50
	publishStalled(t, s, stall, n)
	stall.Store(false)
	p, _, _, err := c.next(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(p[8:]); got != n {
		t.Errorf("first update after the stall carries cycle %d, want the latest, %d", got, n)
	}
	waitFor(t, s.accounted)
	if s.m.synchronised.Get() != n || s.m.skipped.Get() != n-1 || s.m.updates.Get() != 1 {
		t.Errorf("synchronised %d, skipped %d, sent %d; want %d, %d, 1", s.m.synchronised.Get(), s.m.skipped.Get(), s.m.updates.Get(), n, n-1)
	}
}

func TestSynchroniseNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	s := start(t, scalarCfg())
	if n := testing.AllocsPerRun(1000, func() { s.Synchronise() }); n != 0 {
		t.Errorf("Synchronise: %v allocs", n)
	}
}

// TestSteadyStateNoAllocs runs the whole server with a client connected:
// the RT side, the network thread, serialisation, quantisation and
// fragmentation, and checks the process allocates nothing over thousands
// of cycles.
func TestSteadyStateNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	cfg := Config{MaxPayloadSize: 1400, Signals: []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 1000, TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 1e6},
		{Name: "Q", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 100, QuantizedType: quant.Int16, RangeMin: -1, RangeMax: 1},
	}}
	s := start(t, cfg)
	c := connected(t, s)
	// The client reads in its own goroutine with a preallocated buffer.
	var received atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 65536)
		for {
			if _, _, err := c.conn.ReadFromUDPAddrPort(buf); err != nil {
				return
			}
			received.Add(1)
		}
	}()
	sync1 := func(n int) {
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), uint32(i))
			s.Synchronise()
			spin(200 * time.Microsecond)
		}
	}
	sync1(2000) // warm-up
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	sync1(5000)
	runtime.ReadMemStats(&m1)
	c.conn.Close()
	<-done
	if d := m1.Mallocs - m0.Mallocs; d > 20 { // ReadMemStats itself and the runtime may allocate a little
		t.Errorf("%d allocations over 5000 cycles", d)
	}
	if s.m.updates.Get() < 1000 {
		t.Errorf("only %d updates sent", s.m.updates.Get())
	}
}

// spin waits d without sleeping (time.Sleep's granularity is too coarse).
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

func TestValidateNamesEveryRule(t *testing.T) {
	f32 := func(name string) datasource.Signal { return datasource.Signal{Name: name, Type: datasource.Float32} }
	arr := func(name string, n int) datasource.Signal {
		return datasource.Signal{Name: name, Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: n}
	}
	cases := []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"port", func(c *Config) { c.Port = 70000 }, `Port: must be 0..65535`},
		{"payload small", func(c *Config) { c.MaxPayloadSize = 17 }, `MaxPayloadSize: must be 18..65507`},
		{"payload big", func(c *Config) { c.MaxPayloadSize = 65508 }, `MaxPayloadSize: must be 18..65507`},
		{"address", func(c *Config) { c.Address = "localhost" }, `Address: must be an IP address`},
		{"send method", func(c *Config) { c.SendMethod = 9 }, `SendMethod: must be auto, gso, sendmmsg or sendto, got SendMethod(9)`},
		{"quant on int", func(c *Config) {
			c.Signals = []datasource.Signal{{Name: "I", Type: datasource.Int32, QuantizedType: quant.Uint8, RangeMin: 0, RangeMax: 1}}
		}, `signal "I": QuantizedType: quantisation needs a float32 or float64 signal, got int32`},
		{"range reversed", func(c *Config) {
			c.Signals = []datasource.Signal{{Name: "F", Type: datasource.Float32, QuantizedType: quant.Uint8, RangeMin: 1, RangeMax: 0}}
		}, `signal "F": RangeMax: quantisation needs a finite RangeMax > RangeMin, got RangeMin 1 and RangeMax 0`},
		{"range inf", func(c *Config) {
			c.Signals = []datasource.Signal{{Name: "F", Type: datasource.Float64, QuantizedType: quant.Int16, RangeMin: 0, RangeMax: math.Inf(1)}}
		}, `RangeMax: quantisation needs a finite RangeMax`},
		{"range min nan", func(c *Config) {
			c.Signals = []datasource.Signal{{Name: "F", Type: datasource.Float64, QuantizedType: quant.Int16, RangeMin: math.NaN(), RangeMax: 1}}
		}, `RangeMin: quantisation needs a finite RangeMin, got NaN`},
		{"name long", func(c *Config) { c.Signals = []datasource.Signal{f32(strings.Repeat("n", 64))} }, `Name: at most 63 bytes`},
		{"unit long", func(c *Config) { s := f32("u"); s.Unit = strings.Repeat("u", 32); c.Signals = []datasource.Signal{s} }, `signal "u": Unit: at most 31 bytes`},
		{"time signal missing", func(c *Config) {
			a := arr("A", 4)
			a.TimeMode = datasource.FirstSample
			a.SamplingRate = 1
			c.Signals = []datasource.Signal{a}
		}, `signal "A": TimeSignal: is required when TimeMode is FirstSample`},
		{"time signal unknown", func(c *Config) {
			a := arr("A", 4)
			a.TimeMode, a.TimeSignal, a.SamplingRate = datasource.FirstSample, "T", 1
			c.Signals = []datasource.Signal{a}
		}, `TimeSignal: names no signal of this datasource: "T"`},
		{"full array count", func(c *Config) {
			a := arr("A", 4)
			a.TimeMode, a.TimeSignal = datasource.FullArray, "T"
			c.Signals = []datasource.Signal{arr("T", 3), a}
		}, `FullArray needs a time signal with the same NumberOfElements (4); "T" has 3`},
		{"first sample scalar", func(c *Config) {
			a := arr("A", 4)
			a.TimeMode, a.TimeSignal, a.SamplingRate = datasource.FirstSample, "T", 1
			c.Signals = []datasource.Signal{arr("T", 4), a}
		}, `FirstSample needs a scalar time signal; "T" has 4 elements`},
		{"last sample rate", func(c *Config) {
			a := arr("A", 4)
			a.TimeMode, a.TimeSignal = datasource.LastSample, "T"
			c.Signals = []datasource.Signal{{Name: "T", Type: datasource.Uint32}, a}
		}, `LastSample needs SamplingRate > 0 Hz, got 0`},
		{"scalar time mode", func(c *Config) {
			a := f32("A")
			a.TimeMode, a.TimeSignal, a.SamplingRate = datasource.FirstSample, "T", 1
			c.Signals = []datasource.Signal{{Name: "T", Type: datasource.Uint32}, a}
		}, `TimeMode: FirstSample applies to arrays`},
		{"packet time with time signal", func(c *Config) {
			a := arr("A", 2)
			a.TimeSignal = "T"
			c.Signals = []datasource.Signal{{Name: "T", Type: datasource.Uint32}, a}
		}, `TimeSignal: is set but TimeMode is PacketTime`},
		{"negative rate", func(c *Config) { a := arr("A", 2); a.SamplingRate = -1; c.Signals = []datasource.Signal{a} }, `SamplingRate: must be a finite number ≥ 0`},
		{"depth", func(c *Config) { c.HandOffDepth = -1 }, `HandOffDepth: must be 1..65536, or 0 for a depth chosen by time, got -1`},
		{"depth big", func(c *Config) { c.HandOffDepth = maxHandOffDepth + 1 }, `HandOffDepth: must be 1..65536`},
		{"hand-off time", func(c *Config) { c.HandOffTime = -time.Millisecond }, `HandOffTime: must be 0..1m0s, got -1ms`},
		{"hand-off time long", func(c *Config) { c.HandOffTime = 2 * time.Minute }, `HandOffTime: must be 0..1m0s`},
		{"hand-off bytes", func(c *Config) { c.HandOffBytes = maxHandOffBytes + 1 }, `HandOffBytes: must be 0..268435456 (256 MiB)`},
		{"auto keys with a depth", func(c *Config) { c.HandOffDepth, c.HandOffTime = 4, time.Second }, `HandOffDepth: is 4: HandOffTime and HandOffBytes size an automatic ring only`},
		{"cycle period", func(c *Config) { c.CyclePeriod = -1 }, `CyclePeriod: must not be negative`},
		{"wait", func(c *Config) { c.NetworkWait = 7 }, `NetworkWait: must be paced, spin or park, got WaitMode(7)`},
		{"spin without a spin", func(c *Config) { c.NetworkWait = netthread.WaitSpin }, `NetworkWait: spin needs a NetworkSpin above 0`},
		{"park with a spin", func(c *Config) { c.NetworkWait, c.NetworkSpin = netthread.WaitPark, time.Millisecond }, `NetworkSpin: is 1ms: it applies to NetworkWait spin, not park`},
		{"spin long", func(c *Config) { c.NetworkSpin = time.Second }, `NetworkSpin: must be 0..100ms`},
		{"CONFIG too many fragments", func(c *Config) {
			c.MaxPayloadSize = 18
			c.Signals = nil
			for i := 0; i < 500; i++ {
				c.Signals = append(c.Signals, datasource.Signal{Name: fmt.Sprintf("s%d", i), Type: datasource.Uint8})
			}
		}, `the CONFIG message of 68004 bytes (500 signals) needs more than 65535 fragments`},
		{"too many fragments", func(c *Config) {
			c.MaxPayloadSize = 18
			c.Signals = []datasource.Signal{{Name: "Big", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 70000}}
		}, `needs more than 65535 fragments`},
	}
	for _, tc := range cases {
		c := Config{Name: "S", Signals: []datasource.Signal{f32("x")}}
		tc.mod(&c)
		err := Validate(&c)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `datasource "S"`) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, err, tc.want)
		}
		var ce *datasource.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: not a ConfigError", tc.name)
		}
	}
	good := Config{Name: "S", Signals: []datasource.Signal{{Name: "T", Type: datasource.Uint32}, {Name: "A", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 10, TimeMode: datasource.LastSample, TimeSignal: "T", SamplingRate: 1e3}}}
	if err := Validate(&good); err != nil {
		t.Error(err)
	}
	// A signal refused for its size is not counted again against the
	// hand-off ring; one within its rules but too large for the ring is.
	huge := Config{Name: "S", Signals: []datasource.Signal{{Name: "A", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 1 << 40}}}
	if err := Validate(&huge); err == nil || strings.Contains(err.Error(), "HandOffDepth") || !strings.Contains(err.Error(), "NumberOfElements") {
		t.Errorf("a signal of 2^40 elements: %v", err)
	}
	deep := Config{Name: "S", HandOffDepth: 64, Signals: []datasource.Signal{{Name: "A", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 1 << 20}}}
	if err := Validate(&deep); err == nil || !strings.Contains(err.Error(), "HandOffDepth: 64 cycles of 8388616 bytes exceed the hand-off limit") {
		t.Errorf("64 cycles of 8 MiB: %v", err)
	}
}

func TestSpecBurstLayout(t *testing.T) {
	s, err := New(Config{Name: "Burst", MaxPayloadSize: 1400, Signals: []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 1000, Unit: "V", TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 1e6},
	}}, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	if hooks(s).PayloadSize() != 4012 || hooks(s).FragmentCount() != 3 {
		t.Errorf("payload %d in %d fragments, want 4012 in 3", hooks(s).PayloadSize(), hooks(s).FragmentCount())
	}
}

// TestHRTTimestampIsMonotonicRawAtSynchronise checks the DATA timestamp is
// CLOCK_MONOTONIC_RAW of the Synchronise call, not of the send.
func TestHRTTimestampIsMonotonicRawAtSynchronise(t *testing.T) {
	s := start(t, scalarCfg())
	c := connected(t, s)
	for i := 0; i < 20; i++ {
		before := cpu.MonotonicRawNanos()
		s.Synchronise()
		after := cpu.MonotonicRawNanos()
		p, _, _, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		hrt := binary.LittleEndian.Uint64(p)
		// The conversion is exact to within the NTP slew over the hand-off
		// (nanoseconds); allow for the two clock reads around the call.
		const slack = 20 * time.Microsecond
		if hrt+uint64(slack) < before || hrt > after+uint64(slack) {
			t.Fatalf("hrtTimestamp %d not within [%d, %d]", hrt, before, after)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestSerialiseAroundHeaderGaps checks the in-place serialiser against the
// payload built in one piece, for chunk sizes that cut samples and
// quantised codes at every possible byte.
func TestSerialiseAroundHeaderGaps(t *testing.T) {
	q := func(name string, typ datasource.Type, n int, w quant.WireType) datasource.Signal {
		return datasource.Signal{Name: name, Type: typ, NumberOfDimensions: 1, NumberOfElements: n, QuantizedType: w, RangeMin: -1, RangeMax: 1}
	}
	burst := quantBurstCfg()
	burst.Signals = append(burst.Signals, q("Q8", datasource.Float64, 7, quant.Int8),
		datasource.Signal{Name: "F64", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 3})
	mixed := Config{Name: "Mixed", Signals: []datasource.Signal{ // quantised first, last, and side by side
		q("QF", datasource.Float32, 5, quant.Uint16), {Name: "U8", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 3},
		q("QG", datasource.Float64, 4, quant.Int16), q("QH", datasource.Float32, 3, quant.Uint8),
	}}
	for _, cfg := range []Config{burst, mixed} {
		for _, maxPayload := range []int{18, 19, 20, 21, 22, 23, 24, 25, 31, 1400} {
			cfg.MaxPayloadSize = maxPayload
			s, err := New(cfg, metrics.NewSet(), discard())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AllocateMemory(); err != nil {
				t.Fatal(err)
			}
			if got, want := s.serialised(), s.payloadInOnePiece(); !bytes.Equal(got, want) {
				t.Errorf("%s, MaxPayloadSize %d: payload differs from the one built in one piece", cfg.Name, maxPayload)
			}
		}
	}
}

// signal returns the bytes of signal i in the taken buffer.
func (s *Streamer) signal(i int) []byte {
	off := stampSize + s.mem.Offset(i)
	return s.taken[off : off+s.sigs[i].ByteSize()]
}

// serialised fills taken with a pattern (samples in and out of range and
// NaN where quantised), serialises it and returns the reassembled payload.
func (s *Streamer) serialised() []byte {
	for i := range s.taken {
		s.taken[i] = byte(i * 7)
	}
	for i, sig := range s.sigs {
		if sig.QuantizedType == quant.None {
			continue
		}
		mem := s.signal(i)
		for k := range sig.Elements() {
			v := float64(k%9)/4 - 1
			if k%7 == 6 {
				v = math.NaN()
			}
			if sig.Type == datasource.Float32 {
				binary.LittleEndian.PutUint32(mem[4*k:], math.Float32bits(float32(v)))
			} else {
				binary.LittleEndian.PutUint64(mem[8*k:], math.Float64bits(v))
			}
		}
	}
	s.serialise()
	s.dataLayout.PutHeaders(s.wire, frame.Data, 7)
	var got []byte
	for i := range s.dataLayout.Fragments {
		h, n, err := frame.ParseHeader(s.dataLayout.Datagram(s.wire, i))
		if err != nil || int(h.FragmentIdx) != i {
			panic(fmt.Sprint("fragment ", i, err))
		}
		got = append(got, s.dataLayout.Datagram(s.wire, i)[n:]...)
	}
	return got
}

// payloadInOnePiece builds the DATA payload of taken without the wire
// buffer: the stamp, raw signals copied, quantised ones encoded.
func (s *Streamer) payloadInOnePiece() []byte {
	want := append([]byte(nil), s.taken[:stampSize]...)
	for i, sig := range s.sigs {
		mem := s.signal(i)
		if sig.QuantizedType == quant.None {
			want = append(want, mem...)
			continue
		}
		q, _ := quant.New(sig.QuantizedType, sig.RangeMin, sig.RangeMax)
		codes := make([]byte, sig.Elements()*sig.QuantizedType.Size())
		if sig.Type == datasource.Float32 {
			q.EncodeFloat32(codes, memory.View[float32](mem))
		} else {
			q.EncodeFloat64(codes, memory.View[float64](mem))
		}
		want = append(want, codes...)
	}
	return want
}

// newProducer is the Streamer of the lifecycle tests: one name, a free
// loopback port, ms as given (nil: its own), no logger.
func newProducer(tb testing.TB, ms *metrics.Set) dstest.Producer {
	s, err := New(Config{Name: "S", Address: "127.0.0.1", Signals: docScalarCfg().Signals}, ms, nil)
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

// TestMisuseSendMethod: New refuses a send method that is none of the
// four, naming them; each of the four is accepted by name.
func TestMisuseSendMethod(t *testing.T) {
	cfg := docScalarCfg()
	cfg.SendMethod = 4
	if _, err := New(cfg, nil, nil); err == nil || !strings.Contains(err.Error(), `datasource "Scalar": SendMethod: must be auto, gso, sendmmsg or sendto, got SendMethod(4)`) {
		t.Errorf("New with SendMethod(4): %v", err)
	}
	for _, name := range []string{"auto", "gso", "sendmmsg", "sendto"} {
		if err := cfg.SendMethod.UnmarshalText([]byte(name)); err != nil {
			t.Fatal(err)
		}
		if err := Validate(&cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMisuseEmptyName: a datasource needs a name, which its metrics, log
// lines and errors carry.
func TestMisuseEmptyName(t *testing.T) {
	cfg := docScalarCfg()
	cfg.Name = ""
	var ce *datasource.ConfigError
	if _, err := New(cfg, nil, nil); !errors.As(err, &ce) || ce.Parameter != "Name" {
		t.Errorf("New with no name: %v", err)
	}
}

// hooks returns what Internals gives the daemon.
func hooks(s *Streamer) *internals { return s.Internals().(*internals) }

// openTap opens s's tap through Internals, as the daemon does.
func openTap(s *Streamer) (*tap, error) {
	t, err := hooks(s).OpenTap()
	if err != nil {
		return nil, err
	}
	return t.(*tap), nil
}
