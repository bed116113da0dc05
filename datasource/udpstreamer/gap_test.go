package udpstreamer

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestSynchroniseAfterGapIsLossForTheClient publishes cycles with gaps and
// checks the client counts exactly those updates lost, in order.
func TestSynchroniseAfterGapIsLossForTheClient(t *testing.T) {
	cfg := scalarCfg()
	cfg.HandOffDepth = 16
	s := start(t, cfg)
	c := connected(t, s)
	counter := testenv.Must(s.GetSignalMemoryBuffer(0))
	gaps := []uint32{0, 0, 3, 0, 7, 1, 0}
	for i, g := range gaps {
		for hooks(s).Waiting() >= cfg.HandOffDepth {
			time.Sleep(time.Millisecond)
		}
		binary.LittleEndian.PutUint32(counter, uint32(i+1))
		if err := hooks(s).SynchroniseAfterGap(g); err != nil {
			t.Fatal(err)
		}
	}
	for i, g := range gaps {
		p, _, lost, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(p[8:]); v != uint32(i+1) || lost != g {
			t.Fatalf("update %d: value %d lost %d, want %d and %d", i, v, lost, i+1, g)
		}
	}
	waitFor(t, func() bool { return hooks(s).Waiting() == 0 })
}

// TestHandoffCarriesTheGapOfAnOverwrittenCycle: a gap is never dropped
// with the cycle that carried it.
func TestHandoffCarriesTheGapOfAnOverwrittenCycle(t *testing.T) {
	for _, depth := range []int{1, 3} {
		h := newCycleRing(depth, 8)
		var total uint32
		for v := uint32(1); v <= 10; v++ {
			i, _, carry := h.put()
			h.gaps[i] = v + carry
			total += v
		}
		var got uint32
		spare := make([]byte, 8)
		for {
			c, _, gap, ok := h.takeGap(spare)
			if !ok {
				break
			}
			got += gap
			spare = c
		}
		if got != total {
			t.Errorf("depth %d: gaps taken add up to %d, want %d", depth, got, total)
		}
	}
}
