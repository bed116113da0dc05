package netthread

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

func twoCPUs(t *testing.T) bool {
	all, _ := cpu.OnlineMask()
	if all.Count() < 2 || !all.Has(0) {
		t.Logf("CPUs %v: affinity not checked", all)
		return false
	}
	return true
}

func TestStartPinsAndStops(t *testing.T) {
	mask := cpu.Mask(0)
	if twoCPUs(t) {
		mask = cpu.Of(0)
	}
	inside := make(chan cpu.Mask, 1)
	th, err := Start(Config{Name: "svc", CPUMask: mask}, func(stop <-chan struct{}) {
		m, _ := cpu.OnlineMask()
		inside <- m
		<-stop
	})
	if err != nil {
		t.Fatal(err)
	}
	got := <-inside
	if mask != 0 && got != mask {
		t.Errorf("affinity inside %v, want %v", got, mask)
	}
	if th.name() != "svc" {
		t.Error("misnamed")
	}
	if err := th.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-th.done:
	default:
		t.Fatal("Done open after Stop")
	}
	if err := th.Stop(); err != nil {
		t.Fatalf("second Stop = %v, want nil", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Config{Priority: 100}, func(<-chan struct{}) {}); err == nil {
		t.Error("priority 100 accepted")
	}
	all, _ := cpu.OnlineMask()
	if all.Has(63) {
		t.Skip("CPU 63 exists")
	}
	ran := false
	if _, err := Start(Config{Name: "bad", CPUMask: cpu.Of(63)}, func(<-chan struct{}) { ran = true }); err == nil || ran {
		t.Errorf("bad mask: err %v, body ran %v", err, ran)
	}
}

// TestWakeUnblocksStop checks that Stop reaches a body parked without a
// timeout through Config.Wake.
func TestWakeUnblocksStop(t *testing.T) {
	var sem rtsync.EventSem
	var calls atomic.Int64
	th, err := Start(Config{Name: "svc", Wake: sem.Post}, func(stop <-chan struct{}) {
		for {
			if err := sem.WaitReset(rtsync.Forever); err != nil {
				t.Error(err)
				return
			}
			select {
			case <-stop:
				return
			default:
				calls.Add(1)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 4; i++ {
		sem.Post()
		for calls.Load() < i {
			time.Sleep(100 * time.Microsecond)
		}
	}
	// The body is parked in WaitReset(Forever): only Wake can end it.
	if err := th.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestWaitSpinsThenParks checks Wait returns on a Post made during its
// spin, on one made after it parked, and times out without one.
func TestWaitSpinsThenParks(t *testing.T) {
	var sem rtsync.EventSem
	if err := spinWait(&sem, time.Millisecond, time.Millisecond); !errors.Is(err, rtsync.ErrTimeout) {
		t.Fatalf("no Post: %v", err)
	}
	for _, spin := range []time.Duration{0, time.Second} {
		go func() {
			time.Sleep(5 * time.Millisecond)
			sem.Post()
		}()
		if err := spinWait(&sem, spin, 5*time.Second); err != nil {
			t.Fatalf("spin %v: %v", spin, err)
		}
		if sem.WaitReset(0) == nil { // still set
			t.Fatalf("spin %v: the event was not reset", spin)
		}
	}
	sem.Post()
	if err := spinWait(&sem, time.Second, 0); err != nil || sem.WaitReset(0) == nil {
		t.Fatalf("posted before the wait: %v, or still posted after it", err)
	}
}

// TestNotStarted: the nil a failed Start returns, and a zero Thread, answer
// Stop with an error and ThreadID with 0; Start refuses a nil body (which
// would crash the process on the thread); a nil Waiter parks.
func TestNotStarted(t *testing.T) {
	for name, th := range map[string]*Thread{"nil": nil, "zero": new(Thread)} {
		if err := th.Stop(); !errors.Is(err, errNotStarted) {
			t.Errorf("%s: Stop: %v", name, err)
		}
		if th.ThreadID() != 0 {
			t.Errorf("%s: ThreadID %d", name, th.ThreadID())
		}
	}
	if th, err := Start(Config{Name: "nobody"}, nil); err == nil || th != nil {
		t.Errorf("Start with a nil body: %v, %v", th, err)
	}
	if _, err := SetBuffers(nil, 1<<20, 0); err == nil {
		t.Error("SetBuffers of a nil conn: no error")
	}
	Buffers{}.Log(nil, "none", 1) // a nil logger logs nothing
	var w *Waiter
	var sem rtsync.EventSem
	sem.Post()
	if err := w.Wait(&sem, time.Millisecond); err != nil || w.Mode() != WaitPark || w.Stats() != (WaitStats{}) {
		t.Errorf("nil Waiter: Wait %v, Mode %v, Stats %+v", err, w.Mode(), w.Stats())
	}
	if err := w.Wait(&sem, time.Millisecond); !errors.Is(err, rtsync.ErrTimeout) {
		t.Errorf("nil Waiter, nothing posted: %v", err)
	}
}

// TestStopOfABlockedBody: Stop gives up on a body that does not return, with
// an error that says so, instead of waiting for ever; once the body has
// returned, Stop returns nil.
func TestStopOfABlockedBody(t *testing.T) {
	defer func(d time.Duration) { stopTimeout = d }(stopTimeout)
	stopTimeout = 50 * time.Millisecond
	release := make(chan struct{})
	th, err := Start(Config{Name: "stuck"}, func(<-chan struct{}) { <-release })
	if err != nil {
		t.Fatal(err)
	}
	err = th.Stop()
	if err == nil || !strings.Contains(err.Error(), "netthread: stuck: the thread did not return within 50ms of Stop") {
		t.Fatalf("Stop of a blocked body: %v", err)
	}
	close(release)
	if err := th.Stop(); err != nil {
		t.Fatalf("Stop after the body returned: %v", err)
	}
}
