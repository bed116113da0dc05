package scope

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	flatclient "github.com/streamerd/streamerd/datasource/flatudp/client"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	rdwire "github.com/streamerd/streamerd/datasource/rd100s/wire"
	udpsclient "github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/flattest"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
	"github.com/streamerd/streamerd/quant"
)

// runSource runs src into a fresh hub until the test ends; the hub's log
// lines go to the returned buffer.
func runSource(t *testing.T, src Source) (*Hub, *testenv.Buffer, *runResult) {
	t.Helper()
	logs := &testenv.Buffer{}
	h := NewHub(Limits{}, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	ctx, cancel := context.WithCancel(context.Background())
	res := &runResult{done: make(chan struct{})}
	go func() {
		res.err = src.Run(ctx, h)
		close(res.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-res.done:
		case <-time.After(waitFor):
			t.Error("the source did not stop")
		}
	})
	return h, logs, res
}

// runResult is the end of a source's Run: err is set when done closes.
type runResult struct {
	done chan struct{}
	err  error
}

func waitState(t *testing.T, h *Hub, state string) Status {
	t.Helper()
	eventually(t, "state "+state, func() bool { return h.Status().State == state })
	return h.Status()
}

// lastOf returns the newest sample of signal i's trace.
func lastOf(h *Hub, i int) (float64, float64, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if i >= len(h.state) || h.state[i].trace == nil {
		return 0, 0, false
	}
	return h.state[i].trace.last()
}

var udpsSigs = []datasource.Signal{
	{Name: "T0", Type: datasource.Uint32, Unit: "us"},
	{Name: "V", Type: datasource.Float32, QuantizedType: quant.Uint16, RangeMin: -10, RangeMax: 10, Unit: "V"},
	{Name: "Ch", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 10, TimeMode: datasource.FirstSample, SamplingRate: 1e4, TimeSignal: "T0", Unit: "V"},
	{Name: "G", Type: datasource.Int16, NumberOfDimensions: 2, Rows: 2, Cols: 3},
}

// udpsPayload is update k of udpsSigs, the updates a millisecond apart.
func udpsPayload(t *testing.T, k int) []byte { return udpsPayloadEvery(t, k, 1000) }

// udpsPayloadEvery is update k of udpsSigs, the updates us microseconds
// apart.
func udpsPayloadEvery(t *testing.T, k, us int) []byte {
	t.Helper()
	ch := make([]float64, 10)
	for i := range ch {
		ch[i] = float64(k) + float64(i)/10
	}
	p, err := udpstest.Payload(udpsSigs, uint64(k*us)*1e3, [][]float64{{float64(k * us)}, {2.5}, ch, {1, 2, 3, 4, 5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUDPStreamerSource: the signal list as the page shows it, values and
// per-sample times, lost updates counted, then a silence counted and
// followed by a new CONNECT.
func TestUDPStreamerSource(t *testing.T) {
	srv := udpstest.NewServer(t, udpsSigs, 1400)
	src := &UDPStreamer{Server: srv.Addr().String(), Reconnect: true}
	h, logs, _ := runSource(t, src)
	if _, ok := srv.WaitClient(waitFor); !ok {
		t.Fatal("no CONNECT")
	}
	eventually(t, "the CONFIG", func() bool { _, gen := h.Signals(); return gen == 1 })
	sigs, _ := h.Signals()
	if len(sigs) != 4 || sigs[1].Type != "float32 as uint16" || sigs[1].Range[1] != 10 || sigs[2].Dims != "[10]" ||
		sigs[2].Clock != 1 || !sigs[2].Trace || sigs[2].WaveX != "time" || sigs[3].Dims != "[2x3]" || sigs[3].Trace || sigs[3].WaveX != "index" {
		t.Fatalf("signals %+v", sigs)
	}
	for k := range 20 {
		if k == 10 {
			continue // lost
		}
		if err := srv.SendUpdate(uint32(k), udpsPayload(t, k)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "19 updates", func() bool { return src.Counters().Updates == 19 })
	if c := src.Counters(); c.Lost != 1 || c.Skipped != 0 || c.Bytes == 0 {
		t.Fatalf("counters %+v", c)
	}
	h.mu.RLock()
	lost := h.marks[0].n == 1 && h.marks[0].at(0) == mark{t: 0.011, n: 1, kind: MarkLost}
	h.mu.RUnlock()
	if !lost {
		t.Errorf("no lost marker at the update after the lost one (0.011 s): %+v", h.marks[0])
	}
	tt, v, _ := lastOf(h, 2)
	if want := 19*1000/1e6 + 9/1e4; math.Abs(tt-want) > 1e-12 || math.Abs(v-19.9) > 1e-5 {
		t.Fatalf("Ch's last sample (%v, %v), want (%v, 19.9)", tt, v, want)
	}
	if _, v, _ := lastOf(h, 1); math.Abs(v-2.5) > 20.0/65535 {
		t.Fatalf("V = %v", v)
	}
	st := waitState(t, h, StateSilent)
	if !strings.Contains(st.Message, "silence") || src.Counters().Silences != 1 {
		t.Fatalf("status %+v, counters %+v", st, src.Counters())
	}
	eventually(t, "a new CONNECT", func() bool { return srv.Connects() >= 2 })
	if n := strings.Count(logs.String(), "silence"); n != 1 {
		t.Errorf("%d log lines about the silence:\n%s", n, logs)
	}
}

// TestUDPStreamerServerSilent: a server that never answers is one error in
// the banner and one line in the log, however many times it is tried.
func TestUDPStreamerServerSilent(t *testing.T) {
	shortBackoff(t)
	mute, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	src := &UDPStreamer{Server: mute.LocalAddr().String(), Client: udpsclient.Options{ConnectTimeout: 50 * time.Millisecond}}
	h, logs, _ := runSource(t, src)
	st := waitState(t, h, StateError)
	if !strings.Contains(st.Message, "does not answer") {
		t.Fatalf("status %+v", st)
	}
	buf := make([]byte, 64)
	for range 3 { // three CONNECTs at least
		mute.SetReadDeadline(time.Now().Add(waitFor))
		if _, _, err := mute.ReadFrom(buf); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "does not answer"); n != 1 {
		t.Fatalf("%d log lines:\n%s", n, logs)
	}
}

// TestUDPStreamerConfigBeyondLimits: a CONFIG beyond the client's limits
// is an error in the banner that names the limit.
func TestUDPStreamerConfigBeyondLimits(t *testing.T) {
	shortBackoff(t)
	srv := udpstest.NewServer(t, udpsSigs, 1400)
	src := &UDPStreamer{Server: srv.Addr().String(), Client: udpsclient.Options{MaxDataSize: 16}}
	h, logs, _ := runSource(t, src)
	st := waitState(t, h, StateError)
	if !strings.Contains(st.Message, "the client cannot take") || !strings.Contains(st.Message, "MaxDataSize") {
		t.Fatalf("status %+v", st)
	}
	eventually(t, "another try", func() bool { return srv.Connects() >= 3 })
	if n := strings.Count(logs.String(), "cannot take"); n != 1 {
		t.Fatalf("%d log lines:\n%s", n, logs)
	}
}

// TestUDPStreamerTooManySignals: signals beyond MaxSignals are left out
// and named.
func TestUDPStreamerTooManySignals(t *testing.T) {
	h := NewHub(Limits{MaxSignals: 2}, quietLog())
	sigs := []Signal{{Name: "a", Elements: 1}, {Name: "b", Elements: 1}, {Name: "c", Elements: 1}}
	if omitted := h.Configure(Info{}, sigs); len(omitted) != 1 || omitted[0] != "c" {
		t.Fatalf("omitted %v", omitted)
	}
	if got, _ := h.Signals(); len(got) != 2 || !contains(string(h.metaJSON()), `"omitted":["c"]`) {
		t.Fatalf("kept %v, meta %s", got, h.metaJSON())
	}
}

// flatListen starts a FlatUDP source on a free loopback port and returns
// a socket sending to it.
func flatListen(t *testing.T, src *FlatUDP) (*Hub, *testenv.Buffer, *runResult, *net.UDPConn) {
	t.Helper()
	h, logs, done := runSource(t, src)
	if src.Signals == "bad" {
		return h, logs, done, nil
	}
	eventually(t, "the receiver", func() bool { return src.r.Load() != nil })
	to, err := net.ResolveUDPAddr("udp", src.addr) // set before r
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, to)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return h, logs, done, c
}

// TestFlatUDPSource: values decoded by the signals string, counted times
// (a waveform row spread over the period), a wrong size warned about, and
// a silence counted.
func TestFlatUDPSource(t *testing.T) {
	src := &FlatUDP{Listen: "127.0.0.1:0", Signals: "Counter:uint32,Sine:float32,Wave:uint16[4]w,Vec:int8[2]", Rate: 1000, Order: "big"}
	h, logs, _, c := flatListen(t, src)
	sigs, _ := h.Signals()
	if len(sigs) != 4 || sigs[2].WaveX != "time" || !sigs[2].Trace || sigs[3].Trace || sigs[3].WaveX != "index" {
		t.Fatalf("signals %+v", sigs)
	}
	l, _ := flatwire.ParseLayout(src.Signals)
	for k := range 50 {
		b := flatenc.AppendValues(nil, l, []float64{float64(k), 0.5, 1, 2, 3, float64(k), -1, 1}, flatwire.Big)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "50 datagrams", func() bool { return src.Counters().Updates == 50 })
	t0, v0, _ := lastOf(h, 0)
	tw, vw, _ := lastOf(h, 2)
	if v0 != 49 || vw != 49 || math.Abs(tw-t0-3/4000.0) > 1e-9 {
		t.Fatalf("Counter (%v, %v), Wave's last sample (%v, %v)", t0, v0, tw, vw)
	}
	c.Write(make([]byte, 7))
	st := waitState(t, h, StateWarning)
	if !strings.Contains(st.Message, "datagrams of 7 bytes") || src.Counters().Bad != 1 {
		t.Fatalf("status %+v", st)
	}
	waitState(t, h, StateSilent)
	eventually(t, "the silence logged", func() bool { return strings.Contains(logs.String(), "no datagram") })
	if src.Counters().Silences != 1 {
		t.Fatalf("counters %+v", src.Counters())
	}
}

// TestFlatUDPBadSignals: a wrong signals string stops the source with an
// error in the banner that names the row and the rule.
func TestFlatUDPBadSignals(t *testing.T) {
	src := &FlatUDP{Listen: "127.0.0.1:0", Signals: "A:uint32,B:flaot32", Rate: 100}
	h, logs, res := runSource(t, src)
	select {
	case <-res.done:
		if res.err == nil {
			t.Fatal("no error")
		}
	case <-time.After(waitFor):
		t.Fatal("the source did not stop")
	}
	st := h.Status()
	if st.State != StateError || !strings.Contains(st.Message, `"B"`) || !strings.Contains(st.Message, "row 2") {
		t.Fatalf("status %+v", st)
	}
	eventually(t, "the error logged", func() bool { return strings.Contains(logs.String(), "row 2") })
	if strings.Count(logs.String(), "row 2") != 1 {
		t.Fatalf("log:\n%s", logs)
	}
	for _, bad := range []*FlatUDP{{Listen: "127.0.0.1:0", Signals: "A:uint8", Rate: 0}, {Listen: "127.0.0.1:0", Signals: "A:uint8", Rate: 10, Order: "middle"}} {
		if _, err := bad.open(); err == nil {
			t.Errorf("%+v opened", bad)
		}
	}
}

// TestRD100SSource: positions against t_us, a missing sequence number
// counted lost, a foreign datagram refused, and the link state.
func TestRD100SSource(t *testing.T) {
	src := &RD100S{Listen: "127.0.0.1:0"}
	// The source binds its own socket: find it by listening first.
	probe, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	src.Listen = probe.LocalAddr().String()
	probe.Close()
	h, _, _ := runSource(t, src)
	waitState(t, h, StateWaiting)
	c, err := net.Dial("udp", src.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	send := func(seq int) {
		p := rdwire.Packet{Seq: uint32(seq), TUs: uint64(seq) * 10000, AzMdeg: int32(seq) * 1000, ElMdeg: 45000, Status: rdwire.AzValid | rdwire.ElValid}
		c.Write(rdwire.AppendPacket(nil, &p))
	}
	for seq := range 20 {
		if seq != 7 {
			send(seq)
		}
	}
	c.Write([]byte("not a packet"))
	// Keep the stream going at 200 Hz until the link is seen ok.
	seq := 20
	eventually(t, "the link ok with one lost and one refused", func() bool {
		send(seq)
		seq++
		time.Sleep(5 * time.Millisecond)
		cn := src.Counters()
		return cn.Link == "ok" && cn.Lost == 1 && cn.Bad == 1
	})
	last := float64(seq - 1)
	if tt, az, _ := lastOf(h, 0); tt != last/100 || az != last {
		t.Fatalf("az (%v, %v)", tt, az)
	}
	if _, el, _ := lastOf(h, 1); el != 45 {
		t.Fatalf("el %v", el)
	}
	waitState(t, h, StateSilent)
	// At least one silence: a loaded machine may stall the sender above
	// long enough for an earlier one.
	if cn := src.Counters(); cn.Link != "timed out" || cn.Silences == 0 {
		t.Fatalf("counters after the stream stopped %+v", cn)
	}
}

// TestUDPStreamerReceiveAllocs: once the session runs and the history holds
// its longest window, receiving an update and adding it to the history
// allocate nothing (counted over thousands of updates, the test's own
// sending included). The updates are 100 ms apart, so the warm-up covers
// more than the 60 s the levels keep.
func TestUDPStreamerReceiveAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	srv := udpstest.NewServer(t, udpsSigs, 1400)
	src := &UDPStreamer{Server: srv.Addr().String()}
	h, _, _ := runSource(t, src)
	if _, ok := srv.WaitClient(waitFor); !ok {
		t.Fatal("no CONNECT")
	}
	payloads := make([][]byte, 8000)
	for k := range payloads {
		payloads[k] = udpsPayloadEvery(t, k, 100_000)
	}
	// waitPushed waits, without allocating, until n updates reached the hub.
	waitPushed := func(n uint64) {
		deadline := time.Now().Add(waitFor)
		for h.updates.Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d updates pushed", h.updates.Load(), n)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	send := func(from, n int) {
		for k := from; k < from+n; k++ {
			srv.SendUpdate(uint32(k), payloads[k])
			if k%50 == 49 { // let the receiver keep up: nothing is lost
				waitPushed(uint64(k + 1))
			}
		}
	}
	send(0, 3000) // levels and buffers reach their size
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	send(3000, 5000)
	runtime.ReadMemStats(&m1)
	// The runtime may allocate a few times on its own (its timers); one
	// allocation per update would show as thousands.
	if n := m1.Mallocs - m0.Mallocs; n > 4 {
		t.Errorf("%d allocations over 5000 updates", n)
	}
	if c := src.Counters(); c.Lost != 0 {
		t.Errorf("lost %d", c.Lost)
	}
}

// TestFlatUDPMulticast: with Group the source joins the group on the
// loopback interface and receives what is sent to it.
func TestFlatUDPMulticast(t *testing.T) {
	group := netip.AddrFrom4([4]byte{239, 255, byte(rand.IntN(256)), byte(1 + rand.IntN(254))}).String()
	probe, err := flatclient.ListenMulticast(group, "127.0.0.1", 0)
	if err != nil {
		t.Skipf("the machine refuses the multicast join of %s on 127.0.0.1: %v", group, err)
	}
	port := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close()
	src := &FlatUDP{Listen: ":" + strconv.Itoa(port), Group: group, Iface: "127.0.0.1", Signals: "A:float64", Rate: 100}
	h, _, _ := runSource(t, src)
	eventually(t, "the receiver", func() bool { return src.r.Load() != nil })
	s, err := flattest.DialMulticast(group, "127.0.0.1", port)
	if err != nil {
		t.Skipf("the machine refuses a multicast sender to %s: %v", group, err)
	}
	defer s.Close()
	l, _ := flatwire.NewLayout([]flatwire.Signal{{Name: "A", Type: datasource.Float64, Count: 1}})
	eventually(t, "a datagram through the group", func() bool {
		s.Write(flatenc.AppendValues(nil, l, []float64{7.5}, flatwire.Little))
		time.Sleep(time.Millisecond)
		_, v, ok := lastOf(h, 0)
		return ok && v == 7.5
	})
}
