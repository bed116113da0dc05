package cpu

import (
	"runtime"
	"testing"
)

// TestStartThreadAddsAP checks every thread StartThread runs adds one to
// GOMAXPROCS while it runs, and the value comes back when they end.
func TestStartThreadAddsAP(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	stop := make(chan struct{})
	var dones []<-chan struct{}
	for range 2 {
		_, done, err := StartThread(0, 0, func() { <-stop })
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, done)
	}
	if got := runtime.GOMAXPROCS(0); got != before+2 {
		t.Errorf("two threads running: GOMAXPROCS %d, want %d", got, before+2)
	}
	close(stop)
	for _, d := range dones {
		<-d
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("after: GOMAXPROCS %d, want %d", got, before)
	}
	if _, _, err := StartThread(0, 100, func() {}); err == nil || runtime.GOMAXPROCS(0) != before {
		t.Errorf("a refused thread: %v, GOMAXPROCS %d", err, runtime.GOMAXPROCS(0))
	}
	if _, _, err := StartThread(0, 0, nil); err == nil || runtime.GOMAXPROCS(0) != before {
		t.Errorf("a nil body: %v, GOMAXPROCS %d", err, runtime.GOMAXPROCS(0))
	}
}
