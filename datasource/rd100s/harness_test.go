package rd100s

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/rd100s/client"
	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

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
	t.Cleanup(func() { e.Stop() })
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
	ne.PutUint64(e.GetSignalMemoryBuffer(sigAz), math.Float64bits(az))
	ne.PutUint64(e.GetSignalMemoryBuffer(sigEl), math.Float64bits(el))
	ne.PutUint32(e.GetSignalMemoryBuffer(sigAzRate), math.Float32bits(azRate))
	ne.PutUint32(e.GetSignalMemoryBuffer(sigElRate), math.Float32bits(elRate))
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
func eventsOf(e *Encoder, name string) []Event {
	var out []Event
	for _, ev := range e.Events() {
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
		if p.Status.Has(wire.Degraded) {
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
