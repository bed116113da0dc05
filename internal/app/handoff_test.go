package app

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/streamerd/streamerd/datasource"
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

// statusOfTest returns the /status object of ds, decoded.
func statusOfTest(t *testing.T, ds datasource.DataSource) map[string]any {
	t.Helper()
	b, err := json.Marshal(statusOf(ds))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHandOffSizedByTheFeedingThread checks that each producer's
// automatic ring is sized for the period of the thread that synchronises
// it: 500 ms is 500 cycles at 1 kHz and 125 at 250 Hz.
func TestHandOffSizedByTheFeedingThread(t *testing.T) {
	f := parseConfig(t, "two.toml", twoRates)
	a, err := Build(f, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if h := statusOfTest(t, a.sources[0].ds); h["hand_off_depth"] != 500.0 || h["hand_off_auto"] != true || h["hand_off_covers_ms"] != 500.0 {
		t.Errorf("UDPStreamer fed at 1 kHz: %v", h)
	}
	if h := statusOfTest(t, a.sources[1].ds); h["buffers"] != 125.0 || h["buffers_auto"] != true || h["queue_covers_ms"] != 500.0 {
		t.Errorf("FlatUDP fed at 250 Hz: %v", h)
	}
	for i, want := range []time.Duration{500 * time.Millisecond, 500 * time.Millisecond} {
		if h, ok := internalsOf(a.sources[i].ds).(handOffCovers); !ok || h.HandOffCovers() != want {
			t.Errorf("%s: ring covers %v, want %v", a.sources[i].cfg.Name, h, want)
		}
	}
}
