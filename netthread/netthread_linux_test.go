//go:build !portable

package netthread

import (
	"errors"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPriority(t *testing.T) {
	var policy atomic.Uint32
	th, err := Start(Config{Name: "fifo", Priority: 5}, func(stop <-chan struct{}) {
		if a, err := unix.SchedGetAttr(0, 0); err == nil {
			policy.Store(a.Policy)
		}
		<-stop
	})
	if errors.Is(err, unix.EPERM) {
		t.Skipf("SCHED_FIFO not permitted: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	th.Stop()
	if policy.Load() != unix.SCHED_FIFO {
		t.Errorf("policy %d", policy.Load())
	}
}
