//go:build !portable

package app

import (
	"errors"
	"log/slog"
	"runtime"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"golang.org/x/sys/unix"
)

// policies returns the scheduling policy and priority of every thread of
// the process, by thread id.
func policies(t *testing.T) map[int]unix.SchedAttr {
	t.Helper()
	tids, err := threadIDs()
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]unix.SchedAttr{}
	for _, tid := range tids {
		if a, err := unix.SchedGetAttr(tid, 0); err == nil {
			m[tid] = *a
		}
	}
	return m
}

// TestRuntimePriority starts an application with RuntimePriority 1 and its
// RT thread at 20: every thread of the process runs at SCHED_FIFO, the RT
// thread at its own priority and all others at 1, also threads the
// runtime creates afterwards; Stop puts them back under normal scheduling.
func TestRuntimePriority(t *testing.T) {
	if _, err := setRuntimePriority(1); err != nil {
		if errors.Is(err, unix.EPERM) {
			t.Skipf("SCHED_FIFO refused: %v", err)
		}
		t.Fatal(err)
	}
	restoreRuntimePriority(1)

	f := exampleFile(t, "app.toml")
	f.App.RuntimePriority = 1
	f.Threads[0].Priority = 20
	a, err := Build(f, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			a.Stop()
		}
	}()
	rtTID := a.threads[0].rt.ThreadID()

	// Threads the runtime starts now: goroutines that hold their thread
	// while blocked make it start new ones.
	const held = 4
	release := make(chan struct{})
	got := make(chan unix.SchedAttr, held)
	for range held {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			attr, _ := unix.SchedGetAttr(0, 0)
			got <- *attr
			<-release
		}()
	}
	for range held {
		if attr := <-got; attr.Policy != unix.SCHED_FIFO || attr.Priority != 1 {
			t.Errorf("a thread started during the run: policy %d priority %d, want SCHED_FIFO 1", attr.Policy, attr.Priority)
		}
	}
	close(release)

	for tid, attr := range policies(t) {
		want := uint32(1)
		if tid == rtTID {
			want = 20
		}
		if attr.Policy != unix.SCHED_FIFO || attr.Priority != want {
			t.Errorf("thread %d: policy %d priority %d, want SCHED_FIFO %d", tid, attr.Policy, attr.Priority, want)
		}
	}

	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	for tid, attr := range policies(t) {
		if attr.Policy == unix.SCHED_FIFO && attr.Priority == 1 {
			t.Errorf("thread %d still at SCHED_FIFO 1 after Stop", tid)
		}
	}
}
