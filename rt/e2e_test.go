package rt

import (
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

	var (
		lock      rtsync.FastLock
		sem       rtsync.EventSem
		buf       [2]uint32 // sequence number, Counter signal
		seq       uint32
		finished  atomic.Bool
		rtInside  atomic.Uint64
		netInside atomic.Uint64
		th        *Thread
	)
	gam := stepFunc(func() error {
		if seq == 0 {
			m, _ := cpu.CurrentThreadAffinity()
			rtInside.Store(uint64(m))
		}
		if seq == cycles {
			return nil
		}
		seq++
		if err := lock.FastLock(rtsync.Forever, 0); err != nil {
			return err
		}
		buf[0], buf[1] = seq, *th.Counter()
		lock.FastUnLock()
		sem.Post()
		if seq == cycles {
			finished.Store(true)
		}
		return nil
	})
	WarmThreadPool(8)
	var err error
	// GCOff is the run's GC policy: no GC cycle (whose start-up may
	// allocate) can fall inside the measured window.
	th, err = New(Config{Name: "rt", Frequency: 2000, CPUMask: rtMask, GCOff: true, MemoryLimit: 1 << 30},
		[]Step{{Name: "writer", Exec: gam}}, nil)
	if err != nil {
		t.Fatal(err)
	}

	var seen, skipped, last, lastCounter atomic.Uint32
	var backwards atomic.Uint32
	net, err := netthread.Start(netthread.Config{Name: "net", CPUMask: netMask, Wake: sem.Post}, func(stop <-chan struct{}) {
		m, _ := cpu.CurrentThreadAffinity()
		netInside.Store(uint64(m))
		for {
			select {
			case <-stop:
				return
			default:
			}
			if sem.WaitReset(50*time.Millisecond) != nil {
				continue // timeout: check stop
			}
			lock.FastLock(rtsync.Forever, time.Microsecond)
			v, c := buf[0], buf[1]
			lock.FastUnLock()
			l := last.Load()
			switch {
			case v < l || c < lastCounter.Load():
				backwards.Add(1)
			case v > l:
				seen.Add(1)
				skipped.Add(v - l - 1)
				last.Store(v)
				lastCounter.Store(c)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer net.Stop()

	if err := th.Start(); err != nil {
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
	for last.Load() != cycles {
		time.Sleep(time.Millisecond)
	}
	if err := net.Stop(); err != nil {
		t.Fatal(err)
	}

	s := th.Stats()
	t.Logf("RT: %d cycles, %d overruns, %d missed periods, wake-up latency max %v; net: seen %d, skipped %d",
		s.Cycles, s.Overruns, s.MissedPeriods, s.MaxLatency, seen.Load(), skipped.Load())
	if seen.Load()+skipped.Load() != cycles || backwards.Load() != 0 {
		t.Errorf("seen %d + skipped %d != %d, went backwards %d times", seen.Load(), skipped.Load(), cycles, backwards.Load())
	}
	if lastCounter.Load() < cycles {
		t.Errorf("last Counter %d < %d cycles", lastCounter.Load(), cycles)
	}
	if s.Failures != 0 {
		t.Errorf("step failures: %v", s.Err())
	}
	if d := m1.Mallocs - m0.Mallocs; d != 0 && !testenv.RaceEnabled && !testenv.Portable {
		t.Errorf("%d allocations during the run (OS threads %d -> %d)", d, threads0, threads1)
	}
	if rtMask != 0 {
		if got := cpu.Mask(rtInside.Load()); got != rtMask || th.Affinity() != rtMask {
			t.Errorf("RT affinity inside %v, reported %v, want %v", got, th.Affinity(), rtMask)
		}
		if got := cpu.Mask(netInside.Load()); got != netMask || net.Affinity() != netMask {
			t.Errorf("net affinity inside %v, reported %v, want %v", got, net.Affinity(), netMask)
		}
	}
}
