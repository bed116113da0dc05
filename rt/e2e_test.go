package rt

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// handOff is the RT-to-network hand-off under test: the RT side writes a
// sequence number and the Counter signal under a FastLock and posts; the
// network side takes the latest pair and counts what it saw, skipped, or
// saw going backwards.
type handOff struct {
	lock rtsync.FastLock
	sem  rtsync.EventSem
	buf  [2]uint32 // sequence number, Counter signal

	// RT side
	cycles   uint32 // sequence numbers to write
	seq      uint32
	counter  *uint32
	finished atomic.Bool
	rtInside atomic.Uint64

	// network side
	netInside                        atomic.Uint64
	seen, skipped, last, lastCounter atomic.Uint32
	backwards                        atomic.Uint32
}

// Execute is the RT thread's GAM: it writes the next sequence number until
// cycles have been written.
func (h *handOff) Execute() error {
	if h.seq == 0 {
		m, _ := cpu.OnlineMask()
		h.rtInside.Store(uint64(m))
	}
	if h.seq == h.cycles {
		return nil
	}
	h.seq++
	if err := h.lock.FastLock(rtsync.Forever, 0); err != nil {
		return err
	}
	h.buf[0], h.buf[1] = h.seq, *h.counter
	h.lock.FastUnLock()
	h.sem.Post()
	if h.seq == h.cycles {
		h.finished.Store(true)
	}
	return nil
}

// serve is the network thread's body: take the latest pair on every Post.
func (h *handOff) serve(stop <-chan struct{}) {
	m, _ := cpu.OnlineMask()
	h.netInside.Store(uint64(m))
	for {
		select {
		case <-stop:
			return
		default:
		}
		if h.sem.WaitReset(50*time.Millisecond) != nil {
			continue // timeout: check stop
		}
		h.lock.FastLock(rtsync.Forever, time.Microsecond)
		v, c := h.buf[0], h.buf[1]
		h.lock.FastUnLock()
		l := h.last.Load()
		switch {
		case v < l || c < h.lastCounter.Load():
			h.backwards.Add(1)
		case v > l:
			h.seen.Add(1)
			h.skipped.Add(v - l - 1)
			h.last.Store(v)
			h.lastCounter.Store(c)
		}
	}
}

// TestRTToNetThread is the end-to-end hand-off: an RT thread at 2 kHz runs
// 5000 cycles of a GAM that writes a sequence number into a FastLock-guarded
// buffer and posts an EventSem; a service thread waits on the sem and sees
// every number or counts it as skipped (latest value wins). No allocation
// happens during the run, and each thread reads its own affinity back.
func TestRTToNetThread(t *testing.T) {
	const cycles = 5000
	rtMask, netMask := cpu.Mask(0), cpu.Mask(0)
	if all, _ := cpu.OnlineMask(); all.Count() >= 2 && all.Has(0) && all.Has(1) {
		rtMask, netMask = cpu.Of(1), cpu.Of(0)
	} else {
		t.Logf("CPUs %v: fewer than two, affinity not checked", all)
	}
	h := &handOff{cycles: cycles}
	WarmThreadPool(8)
	// GCOff is the run's GC policy: no GC cycle (whose start-up may
	// allocate) can fall inside the measured window.
	th, err := New(Config{Name: "rt", Frequency: 2000, CPUMask: rtMask, GCOff: true, MemoryLimit: 1 << 30},
		[]Step{{Name: "writer", Exec: h}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.counter = th.Counter()
	net, err := netthread.Start(netthread.Config{Name: "net", CPUMask: netMask, Wake: h.sem.Post}, h.serve)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Stop()

	mallocs, threads := runMeasured(t, th, &h.finished)
	for h.last.Load() != cycles {
		time.Sleep(time.Millisecond)
	}
	if err := net.Stop(); err != nil {
		t.Fatal(err)
	}

	s := th.Stats()
	t.Logf("RT: %d cycles, %d overruns, %d missed periods; net: seen %d, skipped %d",
		s.Cycles, s.Overruns, s.MissedPeriods, h.seen.Load(), h.skipped.Load())
	if h.seen.Load()+h.skipped.Load() != cycles || h.backwards.Load() != 0 {
		t.Errorf("seen %d + skipped %d != %d, went backwards %d times", h.seen.Load(), h.skipped.Load(), cycles, h.backwards.Load())
	}
	if h.lastCounter.Load() < cycles {
		t.Errorf("last Counter %d < %d cycles", h.lastCounter.Load(), cycles)
	}
	if s.Failures != 0 {
		t.Errorf("step failures: %v", s.Err())
	}
	if mallocs != 0 && !testenv.RaceEnabled && !testenv.Portable {
		t.Errorf("%d allocations during the run (OS threads %s)", mallocs, threads)
	}
	if rtMask != 0 {
		if got := cpu.Mask(h.rtInside.Load()); got != rtMask {
			t.Errorf("RT affinity inside %v, want %v", got, rtMask)
		}
		if got := cpu.Mask(h.netInside.Load()); got != netMask {
			t.Errorf("net affinity inside %v, want %v", got, netMask)
		}
	}
}

// runMeasured starts th, lets it warm up for 200 cycles, then counts the
// process's allocations and OS threads created until finished is set, and
// stops th.
func runMeasured(t *testing.T, th *Thread, finished *atomic.Bool) (mallocs uint64, threads string) {
	t.Helper()
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for th.Stats().Cycles < 200 { // warm up
		time.Sleep(time.Millisecond)
	}
	var m0, m1 runtime.MemStats
	threads0 := pprof.Lookup("threadcreate").Count()
	runtime.ReadMemStats(&m0)
	for !finished.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	runtime.ReadMemStats(&m1)
	threads1 := pprof.Lookup("threadcreate").Count()
	if err := th.Stop(); err != nil {
		t.Fatal(err)
	}
	return m1.Mallocs - m0.Mallocs, fmt.Sprintf("%d -> %d", threads0, threads1)
}
