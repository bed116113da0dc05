//go:build !portable

package cpu

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

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
		got, err := currentThreadAffinity()
		if err != nil || got != last {
			t.Errorf("affinity = %v, %v; want %v", got, err, last)
		}
	})
	// The test goroutine's own thread was never touched.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if got, _ := currentThreadAffinity(); got != all {
		t.Errorf("main thread affinity %v, want %v", got, all)
	}
}

func TestPinZeroIsNoop(t *testing.T) {
	onNewThread(func() {
		before, _ := currentThreadAffinity()
		if err := PinCurrentThread(0); err != nil {
			t.Error(err)
		}
		if after, _ := currentThreadAffinity(); after != before {
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
	if err := setFIFOPriority(0); err == nil {
		t.Error("priority 0 accepted")
	}
	onNewThread(func() {
		err := setFIFOPriority(10)
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
	})
}

// TestStartThreadIsLocked checks that the body stays on one OS thread
// across scheduling points.
func TestStartThreadIsLocked(t *testing.T) {
	onNewThread(func() {
		tid := unix.Gettid()
		for range 100 {
			runtime.Gosched()
			if unix.Gettid() != tid {
				t.Error("the body moved to another OS thread")
				return
			}
		}
	})
}

func TestSetTimerSlack(t *testing.T) {
	if err := SetTimerSlack(0); err == nil {
		t.Error("zero slack accepted")
	}
	onNewThread(func() {
		if err := SetTimerSlack(1); err != nil {
			t.Error(err)
			return
		}
		if got, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err != nil || got != 1 {
			t.Errorf("timer slack %d, %v; want 1", got, err)
		}
	})
}
