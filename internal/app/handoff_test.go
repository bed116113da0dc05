package app

import (
	"log/slog"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
)

// twoRates has a UDPStreamer fed by a 1 kHz thread and a FlatUDP fed by
// a 250 Hz one, both with their hand-off rings left to "auto".
const twoRates = `
[App]
HTTPAddress = ""

[[Threads]]
Name = "Fast"
Frequency = 1000.0
GAMs = ["T1"]

[[Threads]]
Name = "Slow"
Frequency = 250.0
GAMs = ["T2"]

[[GAMs]]
Name = "T1"
Class = "Timer"
  [[GAMs.Outputs]]
  Signal = "Counter"
  DataSource = "S"

[[GAMs]]
Name = "T2"
Class = "Timer"
  [[GAMs.Outputs]]
  Signal = "Counter"
  DataSource = "F"

[[DataSources]]
Name = "S"
Class = "UDPStreamer"
Address = "127.0.0.1"
Port = 44599
  [[DataSources.Signals]]
  Name = "Counter"
  Type = "uint32"

[[DataSources]]
Name = "F"
Class = "FlatUDP"
Address = "127.0.0.1"
ExecutionMode = "RealTimeThread"
  [[DataSources.Signals]]
  Name = "Counter"
  Type = "uint32"
`

// TestHandOffSizedByTheFeedingThread checks that each producer's
// automatic ring is sized for the period of the thread that synchronises
// it: 500 ms is 500 cycles at 1 kHz and 125 at 250 Hz.
func TestHandOffSizedByTheFeedingThread(t *testing.T) {
	f := parseConfig(t, "two.toml", twoRates)
	a, err := Build(f, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	s := a.sources[0].ds.(*udpstreamer.Streamer)
	if h := s.HandOffSize(); h.Depth != 500 || !h.Auto || h.Period != time.Millisecond {
		t.Errorf("UDPStreamer fed at 1 kHz: %v", h)
	}
	if h := a.sources[1].ds.(*flatudp.Sender).HandOffSize(); h.Depth != 125 || !h.Auto || h.Covers != 500*time.Millisecond {
		t.Errorf("FlatUDP fed at 250 Hz: %v", h)
	}
}
