package rt

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// BenchmarkWakeLatency runs b.N cycles of an empty RT thread pinned to CPU 1
// (when there are two CPUs) and reports the wake-up latency (actual minus
// deadline) and the cycle-time deviation from the period, in µs. The fifo
// variants use SCHED_FIFO priority 80 when permitted. Hybrid sleeps 80 % of
// the period.
func BenchmarkWakeLatency(b *testing.B) {
	mask := cpu.Mask(0)
	if all, _ := cpu.OnlineMask(); all.Count() >= 2 && all.Has(1) {
		mask = cpu.Of(1)
	}
	for _, hz := range []float64{1000, 10000} {
		for _, n := range []SleepNature{Default, Busy, Hybrid} {
			for _, prio := range []int{0, 80} {
				name := fmt.Sprintf("%gHz/%v", hz, n)
				if prio > 0 {
					name += "/fifo"
				}
				b.Run(name, func(b *testing.B) {
					benchWake(b, Config{Frequency: hz, SleepNature: n, SleepPercentage: 80, CPUMask: mask, Priority: prio})
				})
			}
		}
	}
}

func benchWake(b *testing.B, cfg Config) {
	n := b.N
	lat, cyc := make([]int64, 0, n), make([]int64, 0, n) // wake-up latency, cycle time (ns)
	cfg.Monitor = func(c *Cycle) {
		if len(lat) < n {
			lat, cyc = append(lat, int64(c.Wake)), append(cyc, int64(c.CycleTime))
		}
	}
	var cycles atomic.Int64
	done := make(chan struct{})
	count := stepFunc(func() error {
		if cycles.Add(1) == int64(n) {
			close(done)
		}
		return nil
	})
	th, err := New(cfg, nil, []Step{{"count", count}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, cpuOK := testenv.ProcessCPU()
	t0 := time.Now()
	if err := th.Start(context.Background()); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, cpu.ErrNotSupported) {
			b.Skip(err)
		}
		b.Fatal(err)
	}
	<-done
	th.Stop()
	if cpu1, ok := testenv.ProcessCPU(); ok && cpuOK {
		// The whole process: the RT thread and what the Go runtime does
		// for it (its monitor thread, the hand-offs of its P).
		b.ReportMetric(100*float64(cpu1-cpu0)/float64(time.Since(t0)), "proc-cpu-%")
	}
	s := th.Stats()
	for i := range lat {
		lat[i] /= 1000
	}
	dev := cyc[1:]
	for i := range dev {
		dev[i] = (dev[i] - th.period) / 1000
		if dev[i] < 0 {
			dev[i] = -dev[i]
		}
	}
	latency.Report(b, lat, "", "wake-µs")
	latency.Report(b, dev, "", "cycdev-µs")
	b.ReportMetric(float64(s.Overruns), "overruns")
}

// BenchmarkPublish is the per-cycle bookkeeping cost: publishing the
// counts of a thread with four steps under the seqlock.
func BenchmarkPublish(b *testing.B) {
	th, _ := New(Config{Frequency: 1000}, []Step{{"a", stepFunc(nop)}, {"b", stepFunc(nop)}, {"c", stepFunc(nop)}}, []Step{{"d", stepFunc(nop)}})
	b.ReportAllocs()
	for b.Loop() {
		th.acc.cycles++
		th.shared.publish(&th.acc)
	}
}

// BenchmarkReadStats is the cost of a snapshot for metrics publishing.
func BenchmarkReadStats(b *testing.B) {
	th, _ := New(Config{Frequency: 1000}, []Step{{"a", stepFunc(nop)}, {"b", stepFunc(nop)}, {"c", stepFunc(nop)}}, []Step{{"d", stepFunc(nop)}})
	s := &Stats{}
	th.ReadStats(s)
	b.ReportAllocs()
	for b.Loop() {
		th.ReadStats(s)
	}
}
