// Package replaytest makes recordings of a live UDPStreamer on loopback for the tests of what replays them.
package replaytest

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/record"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/quant"
)

// Signals are the signals of the live stream: a time signal, a counter
// unique to each cycle, a quantised signal, a vector timed by the time
// signal, a matrix.
func Signals() []datasource.Signal {
	return []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Counter", Type: datasource.Uint64},
		{Name: "Voltage", Type: datasource.Float32, Unit: "V", RangeMin: -10, RangeMax: 10, QuantizedType: quant.Uint16},
		{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 16, Unit: "A",
			TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 16000},
		{Name: "M", Type: datasource.Int16, NumberOfDimensions: 2, Rows: 2, Cols: 2},
	}
}

// counterOf is the value of signal Counter in cycle i.
func counterOf(i int) uint64 { return uint64(i)<<40 | uint64(i) }

// live starts a UDPStreamer producer of Signals on a free loopback port;
// it is stopped when tb ends.
func live(tb testing.TB) *udpstreamer.Streamer {
	tb.Helper()
	s, err := udpstreamer.New(udpstreamer.Config{Name: "Live", Address: "127.0.0.1", HandOffDepth: 64, Signals: Signals()},
		metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	dstest.Start(tb, s)
	return s
}

// cycle writes cycle i into s's memory and publishes it after gap lost
// updates, about every millisecond.
func cycle(s *udpstreamer.Streamer, i int, gap uint32) {
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), uint32(i*1000))
	binary.LittleEndian.PutUint64(testenv.Must(s.GetSignalMemoryBuffer(1)), counterOf(i))
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(2)), math.Float32bits(float32(9.9*math.Sin(float64(i)/7))))
	w := testenv.Must(s.GetSignalMemoryBuffer(3))
	for k := range 16 {
		binary.LittleEndian.PutUint32(w[4*k:], math.Float32bits(float32(i)+float32(k)/16))
	}
	m := testenv.Must(s.GetSignalMemoryBuffer(4))
	for k := range 4 {
		binary.LittleEndian.PutUint16(m[2*k:], uint16(int16(-i*4+k)))
	}
	p := s.Internals().(interface {
		Waiting() int
		SynchroniseAfterGap(lost uint32) error
	})
	for p.Waiting() > 32 {
		time.Sleep(100 * time.Microsecond)
	}
	p.SynchroniseAfterGap(gap)
	time.Sleep(time.Millisecond)
}

// RecordFrom records the UDPStreamer at server to path, keeping the
// quantisation codes, until the returned stop is called.
func RecordFrom(tb testing.TB, server, path string) (*record.Session, func()) {
	tb.Helper()
	sess := record.NewSession(record.Options{Path: path, RowGroupBytes: 16 << 10}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var err error
	wg.Go(func() { err = sess.Run(ctx, &record.UDPStreamerSource{Server: server, Codes: true}) })
	return sess, func() {
		tb.Helper()
		cancel()
		wg.Wait()
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// WaitRows waits until sess recorded n rows, and says what it recorded if
// it does not within 20 s.
func WaitRows(tb testing.TB, sess *record.Session, n uint64, what string) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for sess.Stats().Rows < n {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: %d rows of %d after 20 s; stats %+v", what, sess.Stats().Rows, n, sess.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Record records n cycles of a live producer to path, cycle i after
// gaps[i] lost updates, and returns path.
func Record(tb testing.TB, path string, n int, gaps map[int]uint32) string {
	tb.Helper()
	s := live(tb)
	sess, stop := RecordFrom(tb, s.LocalAddr().String(), path)
	testenv.Eventually(tb, "the recorder connects", 10*time.Second, func() bool { return sessionClient(s).IsValid() })
	for i := range n {
		cycle(s, i, gaps[i])
	}
	WaitRows(tb, sess, uint64(n), "the live stream is recorded")
	stop()
	return path
}

// Connect connects a client to the UDPStreamer at server and returns it
// with the CONFIG; the client is closed when tb ends.
func Connect(tb testing.TB, server string) (*client.Client, *client.Config) {
	tb.Helper()
	c, err := client.Dial(server, client.Options{})
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

// Rows reads a recording's rows as raw bits (record.Layout.Raw).
func Rows(tb testing.TB, path string) (*record.Layout, [][]uint64) {
	tb.Helper()
	f, err := record.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rs := f.Rows()
	defer rs.Close()
	var out [][]uint64
	for {
		row, err := rs.Next()
		if errors.Is(err, io.EOF) {
			return f.Layout, out
		}
		if err != nil {
			tb.Fatal(err)
		}
		raw := make([]uint64, len(row))
		for c := range row {
			raw[c] = f.Layout.Raw(row, c)
		}
		out = append(out, raw)
	}
}

// sessionClient returns the client holding s's session (its Internals).
func sessionClient(s *udpstreamer.Streamer) netip.AddrPort {
	return s.Internals().(interface{ Client() netip.AddrPort }).Client()
}
