//go:build !portable

package rt

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/streamerd/streamerd/rt/cpu"
)

func TestAffinityAndPriority(t *testing.T) {
	all, _ := cpu.OnlineMask()
	mask := cpu.Mask(0)
	if all.Count() >= 2 && all.Has(1) {
		mask = cpu.Of(1)
	} else {
		t.Log("fewer than 2 CPUs: affinity not checked")
	}
	var inside atomic.Uint64
	var policy atomic.Uint32
	var cycles atomic.Uint64
	probe := stepFunc(func() error {
		if cycles.Add(1) == 1 {
			m, _ := cpu.OnlineMask()
			inside.Store(uint64(m))
			if a, err := unix.SchedGetAttr(0, 0); err == nil {
				policy.Store(a.Policy)
			}
		}
		return nil
	})
	th, err := New(Config{Frequency: 500, CPUMask: mask, Priority: 10}, []Step{{"probe", probe}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = th.Start(context.Background())
	if errors.Is(err, unix.EPERM) {
		if !strings.Contains(err.Error(), "CAP_SYS_NICE") {
			t.Errorf("EPERM error lacks advice: %v", err)
		}
		t.Skipf("SCHED_FIFO not permitted: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	waitCycles(&cycles, 2)
	th.Stop()
	if mask != 0 && cpu.Mask(inside.Load()) != mask {
		t.Errorf("affinity inside %v, want %v", cpu.Mask(inside.Load()), mask)
	}
	if policy.Load() != unix.SCHED_FIFO {
		t.Errorf("policy %d, want SCHED_FIFO", policy.Load())
	}
}

// TestStopFromAStep: a step that calls Stop of its own thread gets an
// error at once instead of waiting for itself, and the thread runs on
// until it is stopped from another goroutine, as the error advises: one
// the step starts.
func TestStopFromAStep(t *testing.T) {
	var th *Thread
	errs := make(chan error, 2)
	var cycles atomic.Int64
	step := stepFunc(func() error {
		switch cycles.Add(1) {
		case 3:
			errs <- th.Stop()
		case 20:
			go func() { errs <- th.Stop() }()
		}
		return nil
	})
	var err error
	th, err = New(Config{Name: "self", Frequency: 1000}, nil, []Step{{Name: "s", Exec: step}})
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; !errors.Is(err, errStopFromStep) || !strings.Contains(err.Error(), "go th.Stop()") {
		t.Errorf("Stop from the step: %v", err)
	}
	if err := <-errs; err != nil {
		t.Errorf("Stop from a goroutine the step started: %v", err)
	}
	if n := cycles.Load(); n < 20 {
		t.Errorf("stopped after %d cycles", n)
	}
}
