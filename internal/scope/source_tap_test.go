package scope

import (
	"encoding/binary"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/quant"
)

// TestUDPStreamerTapSource feeds the hub from a real UDPStreamer's tap,
// with no client: the signal list comes from its CONFIG, the values arrive
// dequantised, a pause is a silence, and closing the tap ends Run.
func TestUDPStreamerTapSource(t *testing.T) {
	s, err := udpstreamer.New(udpstreamer.Config{Name: "S", Address: "127.0.0.1", HandOffDepth: 128, Signals: []datasource.Signal{
		{Name: "N", Type: datasource.Uint32},
		{Name: "V", Type: datasource.Float32, QuantizedType: quant.Int16, RangeMin: -10, RangeMax: 10},
	}}, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	tap, err := OpenTap(s)
	if err != nil {
		t.Fatal(err)
	}
	src := &UDPStreamerTap{Name: "S", Tap: tap}
	h, _, res := runSource(t, src)
	waitState(t, h, StateWaiting)
	if sigs, _ := h.Signals(); len(sigs) != 2 || sigs[1].Type != "float32 as int16" {
		t.Fatalf("signals %+v", sigs)
	}
	for n := uint32(1); n <= 100; n++ {
		binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), n)
		binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(1)), math.Float32bits(2.5))
		s.Synchronise()
		time.Sleep(time.Millisecond)
	}
	waitState(t, h, StateReceiving)
	eventually(t, "the last cycle", func() bool {
		_, v, ok := lastOf(h, 0)
		return ok && v == 100
	})
	if _, v, _ := lastOf(h, 1); math.Abs(v-2.5) > 20.0/65534 {
		t.Errorf("V = %v", v)
	}
	if c := src.Counters(); c.Updates+c.Lost != 100 || c.Bytes == 0 {
		t.Errorf("counters %+v", c)
	}
	waitState(t, h, StateSilent)
	if src.Counters().Silences != 1 {
		t.Errorf("silences %d", src.Counters().Silences)
	}
	tap.Close()
	select {
	case <-res.done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end when the tap closed")
	}
}
