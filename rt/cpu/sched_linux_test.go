package cpu

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/streamerd/streamerd/internal/testenv"
)

// onNewThread runs f on a fresh locked OS thread that is destroyed afterwards,
// so pinning and priority changes do not leak into the test binary.
func onNewThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		f()
	}()
	<-done
}

func TestPinCurrentThread(t *testing.T) {
	all, err := OnlineMask()
	if err != nil {
		t.Fatal(err)
	}
	if all.Count() < 2 {
		t.Skipf("only CPUs %v available: skipping affinity checks", all)
	}
	var last Mask
	for i := 63; i >= 0; i-- {
		if all.Has(i) {
			last = Of(i)
			break
		}
	}
	onNewThread(func() {
		if err := PinCurrentThread(last); err != nil {
			t.Error(err)
			return
		}
		got, err := CurrentThreadAffinity()
		if err != nil || got != last {
			t.Errorf("affinity = %v, %v; want %v", got, err, last)
		}
	})
	// The test goroutine's own thread was never touched.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if got, _ := CurrentThreadAffinity(); got != all {
		t.Errorf("main thread affinity %v, want %v", got, all)
	}
}

func TestPinZeroIsNoop(t *testing.T) {
	onNewThread(func() {
		before, _ := CurrentThreadAffinity()
		if err := PinCurrentThread(0); err != nil {
			t.Error(err)
		}
		if after, _ := CurrentThreadAffinity(); after != before {
			t.Errorf("zero mask changed affinity %v -> %v", before, after)
		}
	})
}

func TestPinUnavailableCPU(t *testing.T) {
	all, _ := OnlineMask()
	if all.Has(63) {
		t.Skip("CPU 63 is available")
	}
	onNewThread(func() {
		if err := PinCurrentThread(Of(63)); err == nil {
			t.Error("pinning to CPU 63 succeeded")
		}
	})
}

func TestSetFIFOPriority(t *testing.T) {
	if err := SetFIFOPriority(0); err == nil {
		t.Error("priority 0 accepted")
	}
	onNewThread(func() {
		err := SetFIFOPriority(10)
		if errors.Is(err, unix.EPERM) {
			t.Logf("not permitted here (%v)", err)
			return
		}
		if err != nil {
			t.Error(err)
			return
		}
		var attr *unix.SchedAttr
		attr, err = unix.SchedGetAttr(0, 0)
		if err != nil || attr.Policy != unix.SCHED_FIFO || attr.Priority != 10 {
			t.Errorf("sched attr %+v, %v", attr, err)
		}
		if err := SetNormalPolicy(); err != nil {
			t.Error(err)
		}
	})
}

func TestMonotonicClocks(t *testing.T) {
	a, m := MonotonicRawNanos(), MonotonicNanos()
	time.Sleep(2 * time.Millisecond)
	b, n := MonotonicRawNanos(), MonotonicNanos()
	if b <= a || n <= m {
		t.Fatalf("clocks did not advance: raw %d->%d mono %d->%d", a, b, m, n)
	}
	if d := b - a; d < uint64(time.Millisecond) || d > uint64(10*time.Second) {
		t.Errorf("raw clock advanced %d ns over a 2 ms sleep", d)
	}
}

var sinkU uint64

func TestClockNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	if n := testing.AllocsPerRun(1000, func() { sinkU += MonotonicRawNanos() + uint64(MonotonicNanos()) }); n != 0 {
		t.Fatalf("clocks allocate %v times", n)
	}
	var m Mask
	if n := testing.AllocsPerRun(100, func() { m, _ = CurrentThreadAffinity() }); n != 0 {
		t.Fatalf("CurrentThreadAffinity allocates %v times", n)
	}
	sinkU += uint64(m)
}

func BenchmarkMonotonicRawNanos(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkU += MonotonicRawNanos()
	}
}

func BenchmarkTimeSince(b *testing.B) {
	b.ReportAllocs()
	base := time.Now()
	for b.Loop() {
		sinkU += uint64(time.Since(base))
	}
}
