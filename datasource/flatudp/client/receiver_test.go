package client

import (
	"bytes"
	"errors"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/testenv"
)

// pair is a receiver on a loopback socket and a connected sender.
func pair(tb testing.TB, sigs string) (*Receiver, *net.UDPConn) {
	tb.Helper()
	conn, err := listenUDP("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	r := NewReceiver(conn, flatenc.Layout(tb, sigs))
	tb.Cleanup(func() { r.Close() })
	s, err := net.DialUDP("udp", nil, conn.LocalAddr().(*net.UDPAddr))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return r, s
}

func TestReceiverWrongSizes(t *testing.T) {
	r, s := pair(t, "Trigger:uint8,Ia:float32,Wave:float32[16]")
	l := r.layout
	valid := flatenc.AppendValues(nil, l, slices.Repeat([]float64{1}, l.TotalElements()), wire.Little)
	// Sizes sent in order; 0 is valid. Each distinct wrong size must be
	// reported by the first Read that meets it and never again.
	sent := []int{0, 3, 3, 0, 70, 0, 3, 70, 0, 68, 0}
	type event struct {
		valid bool
		size  int
	}
	var want []event
	reported := map[int]bool{}
	for _, n := range sent {
		switch {
		case n == 0:
			want = append(want, event{valid: true})
		case !reported[n]:
			reported[n] = true
			want = append(want, event{size: n})
		}
	}
	// Wrong sizes carry different bytes so the test sees no stale buffer.
	for i, n := range sent {
		b := valid
		if n != 0 {
			b = bytes.Repeat([]byte{byte(i)}, n)
		}
		if _, err := s.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	from := s.LocalAddr().(*net.UDPAddr).AddrPort()
	for i, w := range want {
		b, src, err := r.Read()
		if src.Port() != from.Port() {
			t.Errorf("event %d: sender %v, want %v", i, src, from)
		}
		if w.valid {
			if err != nil || !bytes.Equal(b, valid) {
				t.Fatalf("event %d: Read = % x, %v; want the valid datagram", i, b, err)
			}
			continue
		}
		if !errors.Is(err, wire.ErrSize) || len(b) != w.size {
			t.Fatalf("event %d: Read = %v, %v; want ErrSize for %d bytes", i, b, err, w.size)
		}
		if want := ": " + strconv.Itoa(w.size) + " bytes, expected 69"; !strings.HasSuffix(err.Error(), want) {
			t.Errorf("message %q", err)
		}
	}
	st := r.Stats()
	wantSt := Stats{Datagrams: 11, Bytes: 5*69 + 3*3 + 2*70 + 68, WrongSize: 6, WrongSizes: 3}
	if st != wantSt {
		t.Errorf("Stats = %+v, want %+v", st, wantSt)
	}
	if got := r.wrongSizes(); !slices.Equal(got, []int{3, 68, 70}) {
		t.Errorf("WrongSizes = %v", got)
	}
	// An empty datagram and one of the largest size are wrong sizes too.
	s.Write(nil)
	s.Write(make([]byte, wire.MaxDatagramSize))
	s.Write(valid)
	for _, size := range []int{0, wire.MaxDatagramSize} {
		if b, _, err := r.Read(); !errors.Is(err, wire.ErrSize) || len(b) != size {
			t.Fatalf("Read = %v, want ErrSize for %d bytes", err, size)
		}
	}
	if _, _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	if got := r.wrongSizes(); !slices.Equal(got, []int{0, 3, 68, 70, wire.MaxDatagramSize}) {
		t.Errorf("WrongSizes = %v", got)
	}
	// A sender of every size: 16 sizes reported in all, the rest counted.
	for n := 100; n < 140; n++ {
		s.Write(make([]byte, n))
	}
	s.Write(valid)
	errs := 0
	for {
		_, _, err := r.Read()
		if err == nil {
			break
		}
		errs++
	}
	if st := r.Stats(); errs != reportSizes-5 || st.WrongSizes != 45 {
		t.Errorf("%d errors for 40 new sizes after 5 (want %d); stats %+v", errs, reportSizes-5, st)
	}
}

func TestReceiverDeadlineAndClose(t *testing.T) {
	r, _ := pair(t, "a:uint8")
	r.conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, _, err := r.Read(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read past the deadline = %v", err)
	}
	r.conn.SetReadDeadline(time.Time{})
	done := make(chan error)
	go func() {
		_, _, err := r.Read()
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	r.Close()
	if err := testenv.Receive(t, done, 10*time.Second, "Read to return after Close"); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close = %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close = %v, want nil as the UDPStreamer client's", err)
	}
}

// TestReceiverLoopbackDecode sends encoder output of many cycles and checks
// each decodes to what was sent, with the stats reader running alongside
// (under -race this checks the counters).
func TestReceiverLoopbackDecode(t *testing.T) {
	r, s := pair(t, fixtureSignals)
	l := r.layout
	stop := make(chan struct{})
	statsDone := make(chan struct{})
	go func() {
		defer close(statsDone)
		for {
			select {
			case <-stop:
				return
			default:
				_ = r.Stats()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	raw := slices.Clone(fixtureRaw)
	got := make([]uint64, l.TotalElements())
	r.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	const cycles = 200
	for i := range cycles {
		raw[0] = uint64(i % 256)
		order := wire.ByteOrder(i % 2)
		if _, err := s.Write(flatenc.AppendRaw(nil, l, raw, order)); err != nil {
			t.Fatal(err)
		}
		b, _, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if err := l.DecodeRaw(got, b, order); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, raw) {
			t.Fatalf("cycle %d: got %x, want %x", i, got, raw)
		}
	}
	close(stop)
	<-statsDone
	if st := r.Stats(); st.Datagrams-st.WrongSize != cycles || st.Datagrams != cycles || st.Bytes != uint64(cycles*l.Size) {
		t.Errorf("Stats = %+v", st)
	}
}

func TestReceiveNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	r, s := pair(t, fixtureSignals)
	l := r.layout
	dg := fixtureDatagram(t)
	vals := make([]float64, l.TotalElements())
	r.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var err error
	n := testing.AllocsPerRun(1000, func() {
		if _, err = s.Write(dg); err != nil {
			return
		}
		var b []byte
		if b, _, err = r.Read(); err != nil {
			return
		}
		err = l.Decode(vals, b, wire.Little)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("send, Read and Decode allocate %v times per datagram", n)
	}
	// A repeated wrong size is counted and skipped without allocating.
	s.Write(dg[:1])
	if _, _, err := r.Read(); !errors.Is(err, wire.ErrSize) {
		t.Fatal(err)
	}
	n = testing.AllocsPerRun(1000, func() {
		s.Write(dg[:1])
		s.Write(dg)
		_, _, err = r.Read()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("a repeated wrong size allocates %v times", n)
	}
}

func TestSocketErrors(t *testing.T) {
	for _, g := range []string{"", "10.0.0.1", "ff02::1", "239.1.1"} {
		if _, err := ListenMulticast(g, "", 0); err == nil {
			t.Errorf("ListenMulticast(%q) succeeded", g)
		}
	}
	if _, err := ListenMulticast("239.1.2.3", "no-such-iface0", 0); err == nil {
		t.Error("unknown interface accepted")
	}
	if _, err := ListenMulticast("239.1.2.3", "::1", 0); err == nil {
		t.Error("IPv6 interface address accepted")
	}
	if _, err := ListenMulticast("239.1.2.3", "", 70000); err == nil {
		t.Error("port 70000 accepted")
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

// BenchmarkReceive measures one datagram through loopback: send, Read and
// Decode, with the latency percentiles of that round trip.
func BenchmarkReceive(b *testing.B) {
	r, s := pair(b, fixtureSignals)
	l := r.layout
	dg := fixtureDatagram(b)
	vals := make([]float64, l.TotalElements())
	lat := make([]time.Duration, 0, 1<<16)
	r.conn.SetReadDeadline(time.Now().Add(5 * time.Minute))
	b.ReportAllocs()
	b.SetBytes(int64(len(dg)))
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.Write(dg); err != nil {
			b.Fatal(err)
		}
		p, _, err := r.Read()
		if err != nil {
			b.Fatal(err)
		}
		sinkErr = l.Decode(vals, p, wire.Little)
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
	}
	latency.ReportDurations(b, lat, "", "ns")
}

// The receiver tests' datagram: every element type, a NaN with a payload
// and an infinity, encoded by internal/flatenc (whose tests check the bytes
// against hand-built datagrams).
const fixtureSignals = "Trigger:uint8,Ia:float32,Wave:int16[3],Big:uint64,D:float64,S:int8,U16:uint16,I32:int32,U32:uint32,I64:int64,N:float64,V:float32[2]"

var fixtureRaw = []uint64{
	1, 0x3FC00000, 0xFFFFFFFFFFFFFFFE, 0, 300, 0xFEDCBA9876543210, 0x400921FB54442D18,
	0xFFFFFFFFFFFFFF80, 0xFFFF, 0xFFFFFFFFFFFE7960, 4000000000, 0x8000000000000001,
	0x7FF8000000000123, 0xBF800000, 0x7F800000,
}

func fixtureDatagram(tb testing.TB) []byte {
	return flatenc.AppendRaw(nil, flatenc.Layout(tb, fixtureSignals), fixtureRaw, wire.Little)
}

var sinkErr error

// TestNoReceiver: a nil or zero Receiver, or one made without a socket or a
// layout, returns an error from Read and Close instead of panicking.
func TestNoReceiver(t *testing.T) {
	for name, r := range map[string]*Receiver{"nil": nil, "zero": new(Receiver), "NewReceiver(nil, nil)": NewReceiver(nil, nil)} {
		if _, _, err := r.Read(); !errors.Is(err, errNoReceiver) {
			t.Errorf("%s: Read: %v", name, err)
		}
		if err := r.Close(); !errors.Is(err, errNoReceiver) {
			t.Errorf("%s: Close: %v", name, err)
		}
		if r.Stats() != (Stats{}) {
			t.Errorf("%s: Stats %+v", name, r.Stats())
		}
	}
}
