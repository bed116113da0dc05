package record

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	rdwire "github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
	"github.com/streamerd/streamerd/quant"
)

// liveSignals has a counter, a quantised signal, a vector and a matrix.
func liveSignals() []datasource.Signal {
	return []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Voltage", Type: datasource.Float32, Unit: "V", RangeMin: -10, RangeMax: 10, QuantizedType: quant.Int16},
		{Name: "Wave", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 4},
		{Name: "M", Type: datasource.Int8, NumberOfDimensions: 2, Rows: 2, Cols: 3},
	}
}

// startStreamer starts a UDPStreamer with a hand-off ring of depth on a
// free loopback port.
func startStreamer(t testing.TB, sigs []datasource.Signal, depth int) *udpstreamer.Streamer {
	t.Helper()
	s, err := udpstreamer.New(udpstreamer.Config{Name: "Live", Address: "127.0.0.1", HandOffDepth: depth, Signals: sigs}, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	return s
}

// connect holds a session with s as its client, closed when tb ends, and
// returns it with the CONFIG.
func connect(tb testing.TB, s *udpstreamer.Streamer) (*client.Client, *client.Config) {
	tb.Helper()
	c, err := client.Dial(s.LocalAddr().String(), client.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	cfg, err := c.Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return c, cfg
}

// publish writes cycle i into the streamer's memory and publishes it,
// never overwriting a cycle the network thread has not taken.
func publish(s *udpstreamer.Streamer, i int) {
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), uint32(i))
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(1)), math.Float32bits(float32(math.Sin(float64(i)/10)*9.5)))
	w := testenv.Must(s.GetSignalMemoryBuffer(2))
	for k := range 4 {
		binary.LittleEndian.PutUint64(w[8*k:], math.Float64bits(float64(i)+float64(k)/4))
	}
	m := testenv.Must(s.GetSignalMemoryBuffer(3))
	for k := range m {
		m[k] = byte(int8(i + k - 3))
	}
	for s.Internals().(interface{ Waiting() int }).Waiting() > 200 {
		time.Sleep(100 * time.Microsecond)
	}
	s.Synchronise()
}

// runSession records src in the background; stop ends it and returns
// Run's error.
func runSession(t *testing.T, src Source, opts Options) (*Session, func() error) {
	t.Helper()
	sess := NewSession(opts, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { err = sess.Run(ctx, src) })
	return sess, func() error {
		cancel()
		wg.Wait()
		return err
	}
}

func TestRecordUDPStreamerLive(t *testing.T) {
	s := startStreamer(t, liveSignals(), 256)
	path := filepath.Join(t.TempDir(), "live.parquet")
	sess, stop := runSession(t, &UDPStreamerSource{Server: s.LocalAddr().String(), Codes: true}, Options{Path: path, RowGroupBytes: 4 << 10})
	testenv.Eventually(t, "the recorder connects", 10*time.Second, func() bool { return sessionClient(s).IsValid() })
	const n = 500
	for i := range n {
		publish(s, i)
	}
	testenv.Eventually(t, "the rows are recorded", 10*time.Second, func() bool { return sess.Stats().Rows+sess.Stats().Lost >= n })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, rows := readAll(t, path)
	defer f.Close()
	l := f.Layout
	if l.Format != UDPStreamer || len(l.Signals) != 4 || l.Signals[1].Unit != "V" || l.Signals[1].QuantizedType != quant.Int16 || l.Signals[3].Rows != 2 {
		t.Fatalf("layout %+v", l.Signals)
	}
	for _, name := range []string{"Counter", "Voltage", "Wave[3]", "M[5]", "Voltage:code", ColHRT, ColLost} {
		if l.Column(name) < 0 {
			t.Fatalf("no column %q", name)
		}
	}
	q, _ := quant.New(quant.Int16, -10, 10)
	var lost uint64
	prev := -1
	for _, r := range rows {
		i := int(r[l.Column("Counter")])
		lost += r[l.Column(ColLost)]
		if prev >= 0 && uint64(i-prev-1) != r[l.Column(ColLost)] {
			t.Fatalf("cycle %d after %d with _lost %d", i, prev, r[l.Column(ColLost)])
		}
		prev = i
		code := q.Code(math.Sin(float64(i)/10) * 9.5)
		if v := math.Float32frombits(uint32(r[l.Column("Voltage")])); v != float32(q.Value(code)) || int16(r[l.Column("Voltage:code")]) != int16(code) {
			t.Fatalf("cycle %d: Voltage %v code %d, want %v and %d", i, v, int16(r[l.Column("Voltage:code")]), float32(q.Value(code)), code)
		}
		if v := math.Float64frombits(r[l.Column("Wave[3]")]); v != float64(i)+0.75 {
			t.Fatalf("cycle %d: Wave[3] %v", i, v)
		}
		if v := int8(r[l.Column("M[5]")]); v != int8(i+2) {
			t.Fatalf("cycle %d: M[5] %d", i, v)
		}
	}
	if uint64(len(rows))+lost != n || prev != n-1 {
		t.Fatalf("%d rows and %d lost for %d cycles (last %d)", len(rows), lost, n, prev)
	}
	t.Logf("%d rows, %d lost", len(rows), lost)
}

// TestRecordHotPathNoAllocs: filling a row from an update and committing it
// allocates nothing once the batch's buffers exist.
func TestRecordHotPathNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	s := startStreamer(t, liveSignals(), 256)
	c, cfg := connect(t, s)
	publish(s, 7)
	var u client.Update
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := c.Next(&u); err != nil {
		t.Fatal(err)
	}
	l, err := ForUDPStreamer("test", cfg.Signals, true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Create(l, Options{Path: filepath.Join(t.TempDir(), "a.parquet"), RowGroupBytes: 1 << 40, RowGroupInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	now := time.Now()
	row := func() {
		r.Row().UDPStreamer(&u, now, 0, 0)
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 * r.batch { // warm: the column buffers of a few batches
		row()
	}
	if n := testing.AllocsPerRun(r.batch-1-r.row.n, row); n != 0 {
		t.Errorf("a row within a batch: %v allocations", n)
	}
	// Across batches: parquet-go takes the values; report what it costs.
	var m0, m1 runtimeMemStats
	m0.read()
	const rows = 20000
	for range rows {
		row()
	}
	m1.read()
	per := float64(m1.mallocs-m0.mallocs) / rows
	t.Logf("%.4f allocations per row over %d rows in batches of %d", per, rows, r.batch)
	if per > 0.05 {
		t.Errorf("%.4f allocations per row in steady state", per)
	}
}

func TestRecordRD100S(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rd.parquet")
	addr := testenv.FreeUDPAddr(t)
	sess, stop := runSession(t, &RD100SSource{Listen: addr}, Options{Path: path})
	testenv.Eventually(t, "the recorder listens", 5*time.Second, func() bool { return sess.Recorder() != nil })
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// seq 1..10, 13..20 (2 lost), 20 again (a duplicate).
	var seqs []uint32
	for s := uint32(1); s <= 20; s++ {
		if s != 11 && s != 12 {
			seqs = append(seqs, s)
		}
	}
	seqs = append(seqs, 20)
	for _, s := range seqs {
		p := rdwire.Packet{Seq: s, TUs: uint64(s) * 10000, AzMdeg: int32(s) * 1000, ElMdeg: -int32(s), AzRate: 5, ElRate: -5, Status: rdwire.AzValid | rdwire.ElValid}
		conn.Write(rdwire.AppendPacket(nil, &p))
		time.Sleep(time.Millisecond)
	}
	testenv.Eventually(t, "the packets are recorded", 5*time.Second, func() bool { return sess.Stats().Rows == 18 })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, rows := readAll(t, path)
	defer f.Close()
	l := f.Layout
	if len(rows) != 18 || sess.Stats().Lost != 2 {
		t.Fatalf("%d rows, %d lost", len(rows), sess.Stats().Lost)
	}
	r := rows[10]
	if r[l.Column(ColCounter)] != 13 || r[l.Column(ColLost)] != 2 || r[l.Column(ColTUs)] != 130000 || int32(r[l.Column("az")]) != 13000 || int32(r[l.Column("el")]) != -13 {
		t.Errorf("row 10: %v", r)
	}
}

func TestRecordFlatUDP(t *testing.T) {
	const signals = "Counter:uint32,Sine:float32,Label:char8[4],Wave:int16[3]w"
	path := filepath.Join(t.TempDir(), "flat.parquet")
	addr := testenv.FreeUDPAddr(t)
	sess, stop := runSession(t, &FlatUDPSource{Listen: addr, Signals: signals, Order: "big"}, Options{Path: path})
	testenv.Eventually(t, "the recorder listens", 5*time.Second, func() bool { return sess.Recorder() != nil })
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fl, _ := flatwire.ParseLayout(signals)
	for i := range 50 {
		conn.Write(flatenc.AppendValues(nil, fl, []float64{float64(i), float64(i) / 2, 'a', 'b', 'c', 0, -1, float64(-i), 3}, flatwire.Big))
		time.Sleep(time.Millisecond)
	}
	conn.Write([]byte("wrong size"))
	testenv.Eventually(t, "the datagrams are recorded", 5*time.Second, func() bool { return sess.Stats().Rows == 50 })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, rows := readAll(t, path)
	defer f.Close()
	l := f.Layout
	if len(rows) != 50 || l.Column("Label[2]") < 0 || l.Column("Wave[1]") < 0 || l.Column(ColLost) >= 0 {
		t.Fatalf("%d rows, columns %v", len(rows), l.Columns)
	}
	for i, r := range rows {
		if r[l.Column("Counter")] != uint64(i) || math.Float32frombits(uint32(r[l.Column("Sine")])) != float32(i)/2 ||
			r[l.Column("Label[2]")] != 'c' || int16(r[l.Column("Wave[1]")]) != int16(-i) {
			t.Fatalf("row %d: %v", i, r)
		}
	}
	var se interface{ Row() int }
	if _, err := ForFlatUDP("x", "A:bogus", "little"); !errors.As(err, &se) || se.Row() != 0 {
		t.Errorf("a bad signals string: %v", err)
	}
}

type runtimeMemStats struct{ mallocs uint64 }

func (m *runtimeMemStats) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mallocs = ms.Mallocs
}

// sessionClient returns the client holding s's session (its Internals).
func sessionClient(s *udpstreamer.Streamer) netip.AddrPort {
	return s.Internals().(interface{ Client() netip.AddrPort }).Client()
}

// TestRecordConfigChanges: the recording moves to a new file at the first
// update of a CONFIG whose layout differs from the file's, and at nothing
// else. CONFIGs that no update follows make no file (300 of them made 300
// files), and a CONFIG fragment the client cannot take, not asked for, ends
// nothing (one forged datagram ended the recording).
func TestRecordConfigChanges(t *testing.T) {
	a := []datasource.Signal{{Name: "A", Type: datasource.Uint32}}
	b := []datasource.Signal{{Name: "B", Type: datasource.Float64}, {Name: "C", Type: datasource.Int16}}
	srv := udpstest.NewServer(t, a, 1400)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.parquet")
	sess, stop := runSession(t, &UDPStreamerSource{Server: srv.Addr().String()}, Options{Path: path})
	if _, ok := srv.WaitClient(10 * time.Second); !ok {
		t.Fatal("the recorder did not connect")
	}
	send := func(sigs []datasource.Signal, counter uint32) {
		t.Helper()
		p, err := udpstest.Payload(sigs, uint64(counter+1)*1e6, [][]float64{{float64(counter)}, {1}})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.SendUpdate(counter, p); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(n uint64) {
		t.Helper()
		testenv.Eventually(t, "the rows are recorded", 10*time.Second, func() bool { return sess.Stats().Rows >= n })
	}
	for i := range uint32(10) {
		send(a, i)
	}
	rows(10)
	for i := range 300 { // B, A, B, ... A: no update between them
		sigs := b
		if i%2 == 1 {
			sigs = a
		}
		if err := srv.SetSignals(sigs); err != nil {
			t.Fatal(err)
		}
		srv.SendConfig()
	}
	// One fragment of a CONFIG of 100 fragments of 10 000 bytes: beyond
	// what the client takes.
	srv.SendDatagram(udpstest.ConfigFragment(1000, 0, 100, make([]byte, 10000)))
	send(a, 10)
	rows(11)
	if err := srv.SetSignals(b); err != nil {
		t.Fatal(err)
	}
	srv.SendConfig()
	send(b, 0)
	rows(12)
	if err := stop(); err != nil {
		t.Fatalf("the recording ended with %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(files) != 2 {
		t.Fatalf("files %v, want run.parquet and run-0002.parquet", files)
	}
	for file, want := range map[string]int{path: 11, FileName(path, 2, false): 1} {
		f, got := readAll(t, file)
		f.Close()
		if len(got) != want {
			t.Errorf("%s: %d rows, want %d", file, len(got), want)
		}
	}
}

// TestRecordDisconnectsAtTheEnd: a recording that ends (its context done)
// ends its session with a DISCONNECT, so the server stops sending; before,
// the socket was closed first and the DISCONNECT never left.
func TestRecordDisconnectsAtTheEnd(t *testing.T) {
	srv := udpstest.NewServer(t, []datasource.Signal{{Name: "A", Type: datasource.Uint32}}, 1400)
	_, stop := runSession(t, &UDPStreamerSource{Server: srv.Addr().String()}, Options{Path: filepath.Join(t.TempDir(), "run.parquet")})
	if _, ok := srv.WaitClient(10 * time.Second); !ok {
		t.Fatal("the recorder did not connect")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the server to see DISCONNECT", 10*time.Second, func() bool { return srv.Disconnects() == 1 })
}
