//go:build !portable

package forensics

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// These tests cause each cause for real, on real threads, and wait until
// an event shows it: no timing is asserted, only "this event got that
// cause". They wait up to causeWait, far more than they need on a quiet
// machine.
const causeWait = 60 * time.Second

type stepFunc func() error

func (f stepFunc) Execute() error { return f() }

// watched starts th and a monitor watching it with the given step names.
func watched(t *testing.T, th *cycles.Thread, steps []string) *Monitor {
	return watchedAs(t, th, steps, false)
}

// watchedAs is watched with the thread declared SCHED_FIFO or not (the
// monitor's flag only: the thread runs as configured).
func watchedAs(t *testing.T, th *cycles.Thread, steps []string, fifo bool) *Monitor {
	t.Helper()
	m := New(Config{Interval: 5 * time.Millisecond, Metrics: metrics.NewSet()})
	m.WatchThread(th, steps, fifo)
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Start()
	t.Cleanup(func() {
		th.Stop()
		m.Stop()
	})
	return m
}

// waitFor polls the source's events until one satisfies ok, or fails
// listing the causes seen.
func waitFor(t *testing.T, m *Monitor, source string, ok func(*Event) bool) Event {
	t.Helper()
	deadline := time.Now().Add(causeWait)
	seen := map[string]int{}
	for time.Now().Before(deadline) {
		for _, ev := range m.Events(source) {
			if ok(&ev) {
				t.Logf("%s: late %v: %s: %s (evidence %+v)", source, ev.Late, ev.Cause, ev.Explain(), ev.Evidence)
				return ev
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, ev := range m.Events(source) {
		seen[fmt.Sprintf("%s (%s)", ev.Cause, ev.Explain())]++
	}
	t.Fatalf("no such event in %v; recent events: %v, counts %v", causeWait, seen, m.Counts(source))
	return Event{}
}

// TestPageFaultStorm: a step that touches 16 MiB of fresh memory (4096
// pages) every 50th cycle overruns, and the overrun is put down to page
// faults.
func TestPageFaultStorm(t *testing.T) {
	var n atomic.Uint64
	touch := stepFunc(func() error {
		if n.Add(1)%50 != 0 {
			return nil
		}
		b, err := unix.Mmap(-1, 0, 16<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			return err
		}
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		return unix.Munmap(b)
	})
	th, err := cycles.New(rt.Config{Name: "RT1", Frequency: 1000}, []rt.Step{{Name: "touch", Exec: touch}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := watched(t, th, []string{"touch"})
	// Every event names "touch", the only step; the storm is an overrun
	// with thousands of faults.
	ev := waitFor(t, m, "RT1", func(ev *Event) bool {
		return ev.Cause == PageFaults && ev.Missed > 0 && ev.Evidence.MinorFaults >= 1000
	})
	// The periods it skipped are put down to the same cause, and no more
	// are counted than the thread missed.
	st := m.Status().Threads[0]
	var all uint64
	for _, n := range st.MissedPeriods {
		all += n
	}
	var stats rt.Stats
	th.ReadStats(&stats)
	if got := st.MissedPeriods[PageFaults.String()]; got < ev.Missed || all > stats.MissedPeriods {
		t.Errorf("missed periods by cause %v (page faults' event: %d), the thread's %d", st.MissedPeriods, ev.Missed, stats.MissedPeriods)
	}
}

// hold blocks in a raw read of a timerfd armed for d: the goroutine keeps
// its P, and the kernel restarts the read after the runtime's preemption
// signal, so a stop-the-world started meanwhile waits for all of it.
func hold(d time.Duration) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(fd, 0, &spec, nil) != nil {
		return
	}
	var buf [8]byte
	unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), 8)
}

// TestGCStopTheWorld: runtime.GC, called from another goroutine while a
// third holds its P in a system call for 20 ms, stops the world for up to
// 20 ms; an RT thread that wakes meanwhile waits for it, and its late
// cycle is put down to a Go pause.
func TestGCStopTheWorld(t *testing.T) {
	th, err := cycles.New(rt.Config{Name: "RT1", Frequency: 1000}, []rt.Step{{Name: "nop", Exec: stepFunc(func() error { return nil })}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Declared SCHED_FIFO, so its evidence says so.
	m := watchedAs(t, th, []string{"nop"}, true)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				hold(20 * time.Millisecond)
			}
		}
	}()
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(30 * time.Millisecond):
				runtime.GC()
			}
		}
	}()
	ev := waitFor(t, m, "RT1", func(ev *Event) bool { return ev.Cause == GoPause })
	if ev.Evidence.GoPauses == 0 || ev.Evidence.GCPauses == 0 || !ev.Evidence.FIFO {
		t.Errorf("%+v", ev)
	}
}

// hogs runs n threads spinning on CPU c under normal scheduling until the
// test ends.
func hogs(t *testing.T, c, n int) {
	var stop atomic.Bool
	var dones []<-chan struct{}
	for range n {
		_, done, err := cpu.StartThread(cpu.Of(c), 0, func() {
			for !stop.Load() {
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, done)
	}
	t.Cleanup(func() {
		stop.Store(true)
		for _, d := range dones {
			<-d
		}
	})
}

// lastCPU is the CPU tests pin to: 1 when there are two, else 0.
func lastCPU() int {
	if all, _ := cpu.OnlineMask(); all.Has(1) {
		return 1
	}
	return 0
}

// TestPreemption: an RT thread under normal scheduling, pinned to a CPU
// where three threads spin, waits for the CPU after its timer fires, and
// its late cycles are put down to preemption.
func TestPreemption(t *testing.T) {
	c := lastCPU()
	th, err := cycles.New(rt.Config{Name: "RT1", Frequency: 1000, CPUMask: cpu.Of(c)}, []rt.Step{{Name: "nop", Exec: stepFunc(func() error { return nil })}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	hogs(t, c, 3)
	m := watched(t, th, []string{"nop"})
	ev := waitFor(t, m, "RT1", func(ev *Event) bool { return ev.Cause == Preempted })
	if ev.Evidence.CPU != c || ev.Evidence.Wait == 0 {
		t.Errorf("%+v", ev)
	}
	st := m.Status()
	if st.Threads[0].Causes["preempted"] == 0 || len(st.Threads[0].Worst) == 0 {
		t.Errorf("status %+v", st.Threads[0])
	}
}

// TestSkippedCyclePreempted: a UDPStreamer whose network thread shares
// its CPU with three spinning threads falls behind; the cycles it skips
// at the hand-off are put down to the network thread's preemption.
func TestSkippedCyclePreempted(t *testing.T) {
	c := lastCPU()
	cfg := udpstreamer.Config{Name: "S", Address: "127.0.0.1", HandOffDepth: 1,
		Signals: []datasource.Signal{{Name: "x", Type: datasource.Uint32}}, NetworkThread: datasource.NetworkThread{CPUMask: cpu.Of(c)},
	}
	s, err := udpstreamer.New(cfg, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	hogs(t, c, 3)
	const period = 200 * time.Microsecond
	m := New(Config{Interval: 5 * time.Millisecond})
	m.WatchProducer("S", s.Internals().(Producer), period, cpu.Of(c), false)
	m.Start()
	defer m.Stop()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				s.Synchronise()
				time.Sleep(period)
			}
		}
	}()
	ev := waitFor(t, m, "S", func(ev *Event) bool { return ev.Cause == Preempted })
	close(stop)
	<-done
	if !ev.Skip || ev.Evidence.CPU != c || !strings.HasPrefix(ev.Explain(), "network thread preempted") {
		t.Errorf("%+v: %s", ev, ev.Explain())
	}
}

// TestSampleNoAllocs: in steady state (threads watched, nothing late) a
// sample and its explanation allocate nothing.
func TestSampleNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	th, err := cycles.New(rt.Config{Name: "RT1", Frequency: 100}, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer th.Stop()
	m := New(Config{})
	m.WatchThread(th, nil, false)
	m.init()
	m.sample(0)
	if n := testing.AllocsPerRun(100, func() { m.sample(0); m.explain(false) }); n != 0 {
		t.Fatalf("a sample allocates %v times", n)
	}
	if !m.hist.last().threads[0].ok {
		t.Error("the RT thread's /proc files were not read")
	}
}

// TestExplainNoAllocs: with every cycle late (a 1 ns threshold) and the
// log off, stamping, sampling and explaining allocate nothing.
func TestExplainNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	th, err := cycles.New(rt.Config{Name: "RT1", Frequency: 2000}, []rt.Step{{Name: "nop", Exec: stepFunc(func() error { return nil })}}, nil, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer th.Stop()
	m := New(Config{Log: slog.New(slog.DiscardHandler)})
	m.WatchThread(th, []string{"nop"}, false)
	m.init()
	for range 3 {
		time.Sleep(10 * time.Millisecond)
		m.sample(0)
		m.explain(false)
	}
	if n := testing.AllocsPerRun(50, func() { time.Sleep(2 * time.Millisecond); m.sample(0); m.explain(false) }); n != 0 {
		t.Fatalf("explaining late cycles allocates %v times per sample", n)
	}
	if c := m.Counts("RT1"); c == [NumCauses]uint64{} {
		t.Error("nothing explained")
	}
}
