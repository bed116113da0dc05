package cpu

import (
	"fmt"
	"strings"
	"testing"
)

// onNewThread runs f on a fresh locked OS thread that is destroyed
// afterwards, so pinning and priority changes do not leak into the test
// binary.
func onNewThread(f func()) {
	_, done, err := StartThread(0, 0, f)
	if err != nil {
		panic(err) // nothing to set up: cannot fail
	}
	<-done
}

// lastCPU returns the mask of the highest CPU the process may use, or 0
// when there are fewer than two (pinning would then prove nothing).
func lastCPU() Mask {
	all, err := OnlineMask()
	if err != nil || all.Count() < 2 {
		return 0
	}
	for i := 63; i >= 0; i-- {
		if all.Has(i) {
			return Of(i)
		}
	}
	return 0
}

func TestStartThread(t *testing.T) {
	mask := lastCPU()
	if mask == 0 {
		t.Log("fewer than two CPUs or no affinity here: pinning not checked")
	}
	inside := make(chan Mask, 1)
	release := make(chan struct{})
	tidInside := make(chan int, 1)
	tid, done, err := StartThread(mask, 0, func() {
		m, _ := currentThreadAffinity()
		inside <- m
		tidInside <- ThreadID()
		<-release
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-inside; mask != 0 && got != mask {
		t.Errorf("affinity inside %v, want %v", got, mask)
	}
	if got := <-tidInside; got != tid {
		t.Errorf("thread id inside %d, returned %d", got, tid)
	}
	select {
	case <-done:
		t.Fatal("done closed while the body runs")
	default:
	}
	close(release)
	<-done
}

func TestMisuseStartThread(t *testing.T) {
	ran := false
	body := func() { ran = true }
	for _, p := range []int{-1, 100} {
		if _, _, err := StartThread(0, p, body); err == nil {
			t.Errorf("priority %d accepted", p)
		}
	}
	if all, _ := OnlineMask(); !all.Has(63) {
		if _, done, err := StartThread(Of(63), 0, body); err == nil || done != nil {
			t.Errorf("CPU 63: err %v, done %v", err, done)
		}
	}
	if ran {
		t.Error("body ran after a failed start")
	}
}

// TestValidatePriority pins the one priority rule every Priority setting
// uses, and the narrower one of SetFIFOPriority.
func TestValidatePriority(t *testing.T) {
	for _, p := range []int{0, 1, 50, MaxPriority} {
		if err := ValidatePriority(p); err != nil {
			t.Errorf("%d: %v", p, err)
		}
	}
	for _, p := range []int{-1, MaxPriority + 1} {
		want := fmt.Sprintf("must be 0 (normal scheduling) or 1..99 (SCHED_FIFO), got %d", p)
		if err := ValidatePriority(p); err == nil || err.Error() != want {
			t.Errorf("%d: %v, want %s", p, err, want)
		}
		if err := setFIFOPriority(p); err == nil || !strings.Contains(err.Error(), "out of range 1..99") {
			t.Errorf("SetFIFOPriority(%d): %v", p, err)
		}
		if _, _, err := StartThread(0, p, func() {}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("StartThread priority %d: %v", p, err)
		}
	}
	if err := setFIFOPriority(0); err == nil {
		t.Error("SetFIFOPriority(0) accepted")
	}
}
