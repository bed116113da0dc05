package flatudp

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

var sinkErr error

// TestSynchroniseNoAllocs requires zero allocations per Synchronise, in both
// modes, whether the cycle is queued or refused.
func TestSynchroniseNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	for _, mode := range []string{realTimeThread, independentThread} {
		cfg := Config{ExecutionMode: mode, NumberOfBuffers: 4096}
		if mode == independentThread {
			cfg.NumberOfPreTriggers, cfg.NumberOfPostTriggers = 3, 3
		}
		h := start(t, cfg, nil)
		c := uint32(0)
		n := testing.AllocsPerRun(2000, func() {
			c++
			setCycle(h.s, c, c%10 == 0)
			sinkErr = h.s.Synchronise()
		})
		if n != 0 {
			t.Errorf("%v: Synchronise allocates %v times per cycle", mode, n)
		}
		// A stalled sender: every cycle refused.
		hd := newHolder()
		h2 := start(t, Config{ExecutionMode: mode, NumberOfBuffers: 4}, hd.hook)
		hd.stall(h2)
		n = testing.AllocsPerRun(1000, func() { sinkErr = h2.s.Synchronise() })
		close(hd.release)
		if n != 0 {
			t.Errorf("%v: a refused Synchronise allocates %v times", mode, n)
		}
		if h2.s.m.overflows.Get() < 990 {
			t.Errorf("%v: %d overflows", mode, h2.s.m.overflows.Get())
		}
	}
}

// TestEndToEndNoAllocs counts every allocation of the process while
// thousands of cycles go from Synchronise through the sender thread to a
// receiver, in both modes and byte orders: the budget is far below one per
// cycle (the runtime and the test's own sleeps may allocate a little).
func TestEndToEndNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	const cycles = 5000
	for _, mode := range []string{realTimeThread, independentThread} {
		for _, order := range []wire.ByteOrder{wire.Little, wire.Big} {
			t.Run(mode+"/"+order.String(), func(t *testing.T) {
				cfg := Config{ExecutionMode: mode, NumberOfBuffers: 1024, ByteOrder: order}
				if mode == independentThread {
					cfg.NumberOfPreTriggers, cfg.NumberOfPostTriggers = 2, 2
				}
				h := start(t, cfg, nil)
				var received atomic.Uint64
				done := make(chan struct{})
				h.conn.SetReadDeadline(time.Now().Add(120 * time.Second))
				go func() {
					defer close(done)
					for {
						if _, _, err := h.r.Read(); err != nil {
							return
						}
						received.Add(1)
					}
				}()
				c := uint32(0)
				run := func(n int) {
					for range n {
						c++
						setCycle(h.s, c, c%5 == 0) // independentThread sends every cycle
						if err := h.s.Synchronise(); err != nil {
							t.Fatal(err)
						}
						for h.s.m.queued.Get()-received.Load() > 64 {
							time.Sleep(20 * time.Microsecond)
						}
					}
					h.waitDrained()
				}
				run(500) // warm up: first sends, netpoll registration
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				run(cycles)
				runtime.ReadMemStats(&after)
				if d := after.Mallocs - before.Mallocs; d > cycles/100 {
					t.Errorf("%d allocations over %d cycles", d, cycles)
				} else {
					t.Logf("%d allocations over %d cycles", d, cycles)
				}
				if st := h.s.snapshot(); st.Overflows != 0 || st.SendErrors != 0 || st.DatagramsSent < cycles {
					t.Errorf("status %+v", st)
				}
				h.r.Close()
				<-done
			})
		}
	}
}
