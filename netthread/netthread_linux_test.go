//go:build !portable

package netthread

import (
	"errors"
	"os"
	"strings"
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

func TestThreadName(t *testing.T) {
	got := make(chan string, 1)
	th, err := Start(Config{Name: "a-name-longer-than-fifteen"}, func(stop <-chan struct{}) {
		b, err := os.ReadFile("/proc/thread-self/comm")
		if err != nil {
			got <- err.Error()
		} else {
			got <- strings.TrimSpace(string(b))
		}
		<-stop
	})
	if err != nil {
		t.Fatal(err)
	}
	th.Stop()
	if name := <-got; name != "a-name-longer-t" {
		t.Errorf("thread name %q, want the first 15 bytes of the Config's", name)
	}
}
