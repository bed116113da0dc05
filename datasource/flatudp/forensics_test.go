package flatudp

import (
	"errors"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// TestSkipStamps: every cycle refused while the sender thread is held
// leaves one stamp, in order, taken while it was held; the sender
// thread's id is known once it runs.
func TestSkipStamps(t *testing.T) {
	hd := newHolder()
	h := start(t, Config{ExecutionMode: realTimeThread, NumberOfBuffers: 4}, hd.hook)
	if !testenv.Portable && h.s.Internals().(*internals).NetworkThreadID() == 0 {
		t.Error("no sender thread id")
	}
	hd.stall(h)
	before := cpu.Now()
	for c := uint32(1); c <= 10; c++ {
		setCycle(h.s, c, false)
		if err := h.s.Synchronise(); err != nil && !errors.Is(err, datasource.ErrCycleSkipped) {
			t.Fatal(err)
		}
	}
	after := cpu.Now()
	close(hd.release)
	dst := make([]int64, 16)
	n, lost := h.s.Internals().(*internals).DrainSkips(dst)
	if n != 6 || lost != 0 || uint64(n) != h.s.snapshot().Overflows {
		t.Fatalf("%d stamps, %d lost, status %+v; want 6", n, lost, h.s.snapshot())
	}
	for i, v := range dst[:n] {
		if v < before || v > after || (i > 0 && v < dst[i-1]) {
			t.Errorf("stamp %d: %d not within [%d, %d] or before the previous", i, v, before, after)
		}
	}
}
