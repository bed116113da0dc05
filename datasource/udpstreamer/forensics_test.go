package udpstreamer

import (
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// TestSkipStamps: every cycle skipped while the network thread is stalled
// leaves one stamp, in order, taken during the stall; the network thread's
// id is known once it runs.
func TestSkipStamps(t *testing.T) {
	const depth, n = 4, 20
	cfg := scalarCfg()
	cfg.HandOffDepth = depth
	s, stall := stalledStreamer(t, cfg)
	if !testenv.Portable && hooks(s).NetworkThreadID() == 0 {
		t.Error("no network thread id")
	}
	before := cpu.Now()
	publishStalled(t, s, stall, n)
	after := cpu.Now()
	stall.Store(false)
	dst := make([]int64, 64)
	got, lost := hooks(s).DrainSkips(dst)
	if uint64(got) != s.m.skipped.Get() || got != n-depth || lost != 0 {
		t.Fatalf("%d stamps, %d lost, %d skipped; want %d", got, lost, s.m.skipped.Get(), n-depth)
	}
	for i, v := range dst[:got] {
		if v < before || v > after || (i > 0 && v < dst[i-1]) {
			t.Errorf("stamp %d: %d, not within [%d, %d] after %d", i, v, before, after, dst[max(i-1, 0)])
		}
	}
	if got, _ := hooks(s).DrainSkips(dst); got != 0 {
		t.Errorf("%d stamps drained twice", got)
	}
}
