package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/pmqos"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// embedded is what docs/embedding.md sets up: a UDPStreamer of n float32
// scalars started with Start, its own private metrics set, and a broker
// that binds one Go slice per signal.
type embedded struct {
	s    *udpstreamer.Streamer
	b    *broker.MemoryMapSynchronisedOutputBroker
	outs [][]float32
	bare []byte // a block of the same size, for the bare copy beside it
}

func newEmbedded(tb testing.TB, n int, mask cpu.Mask) *embedded {
	tb.Helper()
	sigs := make([]datasource.Signal, n)
	for i := range sigs {
		sigs[i] = datasource.Signal{Name: "S" + strconv.Itoa(i), Type: datasource.Float32}
	}
	s, err := udpstreamer.New(udpstreamer.Config{Name: "Embed", Address: "127.0.0.1", Signals: sigs, NetworkThread: datasource.NetworkThread{CPUMask: mask}}, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	e := &embedded{s: s, bare: make([]byte, 4*n)}
	var outs []broker.Output
	for i := range sigs {
		v := []float32{float32(i)}
		e.outs = append(e.outs, v)
		outs = append(outs, broker.Bind(sigs[i].Name, v))
	}
	if e.b, err = broker.NewMemoryMapSynchronisedOutputBroker(s, outs); err != nil {
		tb.Fatal(err)
	}
	return e
}

// bareCopy copies what Execute copies, to a plain block: the cost of the
// copies alone, without Synchronise.
func (e *embedded) bareCopy() {
	for i, v := range e.outs {
		binary.NativeEndian.PutUint32(e.bare[4*i:], math.Float32bits(v[0]))
	}
}

// BenchmarkEmbedExecute is the RT thread's whole share of streaming as
// docs/embedding.md builds it: broker Execute (one copy per bound slice,
// then Synchronise: FastLock, copy into the hand-off ring, stamp, post)
// on a started UDPStreamer with 1, 8 and 64 float32 signals and no client,
// the network thread unpinned and woken by every post. bare-ns is a plain
// copy of the same slices in the same run, and x-bare Execute's ratio to
// it: what the streaming adds to the loop's own work.
func BenchmarkEmbedExecute(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("signals=%d", n), func(b *testing.B) {
			e := newEmbedded(b, n, 0)
			b.ReportAllocs()
			for b.Loop() {
				_ = e.b.Execute()
			}
			exec := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			t0 := time.Now()
			for range b.N {
				e.bareCopy()
			}
			bare := float64(time.Since(t0).Nanoseconds()) / float64(b.N)
			b.ReportMetric(bare, "bare-ns")
			b.ReportMetric(exec/max(bare, 0.01), "x-bare")
		})
	}
}

// BenchmarkEmbedLoop1kHz is the streaming cost inside a paced control
// loop: an rt.Thread at 1 kHz whose step writes 8 float32 signals and
// calls Execute, with a client receiving every update, so each cycle's
// Synchronise wakes a network thread that serialises and sends. Per
// cycle it measures Execute (p50/p99/max-ns) and, just before it, a bare
// copy of the same slices (bare-p50/p99/max-ns); x-bare-p50 is their
// ratio. Placements: "unpinned" (neither thread pinned); "apart" (the
// loop on CPU 1, the network thread on CPU 0); "apart/pmqos0", the same
// holding /dev/cpu_dma_latency at 0 (pmqos.HoldWakeLatency), so an idle CPU
// is not halted and waking the network thread costs less. b.N is the
// number of cycles (-benchtime 3000x: 3 s). The load average at the start
// is logged with -v.
func BenchmarkEmbedLoop1kHz(b *testing.B) {
	online, _ := cpu.OnlineMask()
	for _, place := range []string{"unpinned", "apart", "apart/pmqos0"} {
		b.Run(place, func(b *testing.B) {
			var rtMask, netMask cpu.Mask
			if place != "unpinned" {
				if !online.Has(0) || !online.Has(1) {
					b.Skip("needs CPUs 0 and 1")
				}
				rtMask, netMask = cpu.Of(1), cpu.Of(0)
			}
			if place == "apart/pmqos0" {
				hold, err := pmqos.HoldWakeLatency(0)
				if err != nil {
					b.Skip(err)
				}
				defer hold.Close()
			}
			logLoad(b)
			benchLoop(b, rtMask, netMask)
		})
	}
}

func benchLoop(b *testing.B, rtMask, netMask cpu.Mask) {
	e := newEmbedded(b, 8, netMask)
	cl, err := dialClient(e.s.LocalAddr(), 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.close()
	cycles := b.N
	execNs := make([]int64, 0, cycles)
	bareNs := make([]int64, 0, cycles)
	done := make(chan struct{})
	step := stepFunc(func() error {
		if len(execNs) == cycles {
			return nil
		}
		for i, v := range e.outs {
			v[0] = float32(len(execNs) + i)
		}
		t0 := cpu.MonotonicNanos()
		e.bareCopy()
		t1 := cpu.MonotonicNanos()
		err := e.b.Execute()
		t2 := cpu.MonotonicNanos()
		bareNs = append(bareNs, t1-t0)
		execNs = append(execNs, t2-t1)
		if len(execNs) == cycles {
			close(done)
		}
		return err
	})
	th, err := rt.New(rt.Config{Name: "Loop", Frequency: 1000, CPUMask: rtMask}, []rt.Step{{Name: "control", Exec: step}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := th.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Duration(cycles)*time.Millisecond + 30*time.Second):
		b.Fatalf("%d of %d cycles ran", len(execNs), cycles)
	}
	b.StopTimer()
	th.Stop()
	cl.drain(uint64(cycles), 200*time.Millisecond)
	latency.Report(b, execNs, "", "ns")
	latency.Report(b, bareNs, "bare-", "ns")
	b.ReportMetric(float64(latency.Percentile(execNs, 50))/float64(max(latency.Percentile(bareNs, 50), 1)), "x-bare-p50")
	b.ReportMetric(float64(cl.updates.Load()), "received")
}

// stepFunc makes a closure an rt.Executable.
type stepFunc func() error

func (f stepFunc) Execute() error { return f() }

// logLoad logs the load average when the benchmark starts (with -v).
func logLoad(b *testing.B) {
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("loadavg %s", strings.TrimSpace(string(l)))
	}
}
