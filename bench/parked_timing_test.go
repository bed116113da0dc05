package bench

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/pmqos"
	"github.com/streamerd/streamerd/rt/cpu"
)

// BenchmarkSynchroniseParked explains datasource/udpstreamer's
// Synchronise/<size>/parked figure: what the RT thread pays to wake a
// network thread that is asleep, with 4 KiB of signal memory. Before each
// call the caller waits until the network thread took the previous cycle,
// then sleeps 50 µs more so the thread is parked in the kernel (and its vCPU
// idle) rather than just parking. Placements: "unpinned" (neither thread
// pinned, as udpstreamer's own benchmark runs), "apart" (caller on CPU 1,
// network thread on CPU 0, as a deployment pins them). PM QoS: "default",
// or "pmqos0" holding /dev/cpu_dma_latency at 0 as cyclictest does, which
// keeps idle vCPUs polling instead of halting (skipped where the file
// cannot be opened). Reported: p50-ns, p99-ns, max-ns of Synchronise.
func BenchmarkSynchroniseParked(b *testing.B) {
	online, _ := cpu.OnlineMask()
	for _, place := range []string{"unpinned", "apart"} {
		for _, qos := range []string{"default", "pmqos0"} {
			b.Run(place+"/"+qos, func(b *testing.B) {
				if place == "apart" && (!online.Has(0) || !online.Has(1)) {
					b.Skip("needs CPUs 0 and 1")
				}
				if qos == "pmqos0" {
					hold, err := pmqos.HoldWakeLatency(0)
					if err != nil {
						b.Skip(err)
					}
					defer hold.Close()
				}
				benchParked(b, place == "apart")
			})
		}
	}
}

func benchParked(b *testing.B, apart bool) {
	cfg := udpstreamer.Config{Name: "P", Address: "127.0.0.1", MaxPayloadSize: 65507, Signals: []datasource.Signal{
		{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 4096},
	}}
	if apart {
		cfg.CPUMask = cpu.Of(0)
	}
	ms := metrics.NewSet()
	s, err := startStreamer(b, cfg, ms)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	counter := func(m string) *metrics.Counter {
		return ms.GetOrCreateCounter(fmt.Sprintf(`streamerd_udpstreamer_%s{datasource="P"}`, m))
	}
	syn, noClient, skipped := counter("synchronise_total"), counter("cycles_without_client_total"), counter("cycles_skipped_total")
	lat := latency.New(1 << 16)
	n := b.N
	b.ReportAllocs()
	b.ResetTimer()
	mask := cpu.Mask(0)
	if apart {
		mask = cpu.Of(1)
	}
	_, done, err := cpu.StartThread(mask, 0, func() {
		for range n {
			for noClient.Get()+skipped.Get() < syn.Get() {
				runtime.Gosched()
			}
			time.Sleep(50 * time.Microsecond)
			t0 := time.Now()
			s.Synchronise()
			lat.Add(time.Since(t0))
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	<-done
	b.StopTimer()
	lat.Report(b, "", "ns")
}
