//go:build unix

package udpstreamer

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// syncStep is an RT step that calls Synchronise.
type syncStep struct{ s *Streamer }

func (x syncStep) Execute() error { return x.s.Synchronise() }

// spinDuration is how long each NetworkSpin variant runs: 1 s, or
// STREAMERD_BENCH_SUSTAIN.
func spinDuration(b *testing.B) time.Duration {
	if v := os.Getenv("STREAMERD_BENCH_SUSTAIN"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return min(d, 5*time.Second)
		}
	}
	return time.Second
}

// BenchmarkNetworkSpin measures what NetworkSpin costs in CPU: the doc's
// burst streamed to a client on loopback by an RT thread pinned to CPU 0
// at 1 kHz and 10 kHz, the network thread pinned to CPU 1 with no spin, a
// 50 µs spin and a 1 ms spin, and with the paced wait ("spin=paced"). Reported: cpu-%, the whole process's CPU
// time (RT thread, network thread, client) over the run in % of one core:
// the difference between variants is the spin's; updates/s received.
func BenchmarkNetworkSpin(b *testing.B) {
	if online, _ := cpu.OnlineMask(); !online.Has(0) || !online.Has(1) {
		b.Skip("needs CPUs 0 and 1")
	}
	d := spinDuration(b)
	for _, hz := range []float64{1000, 10000} {
		for _, v := range []struct {
			name string
			spin time.Duration
		}{{"0", 0}, {"50us", 50 * time.Microsecond}, {"1ms", time.Millisecond}, {"paced", -1}} {
			spin := v.spin
			b.Run(fmt.Sprintf("%gHz/spin=%s", hz, v.name), func(b *testing.B) {
				c := docBurstCfg()
				c.Address, c.CPUMask, c.NetworkSpin = "127.0.0.1", cpu.Of(1), spin
				switch spin {
				case 0:
					c.NetworkWait = netthread.WaitPark
				case -1: // the paced wait, told the period
					c.NetworkSpin, c.CyclePeriod = 0, time.Duration(float64(time.Second)/hz)
				}
				s := start(b, c)
				cl := connected(b, s)
				go func() {
					for {
						if _, _, err := cl.conn.ReadFromUDPAddrPort(cl.buf); err != nil {
							return
						}
					}
				}()
				th, err := rt.New(rt.Config{Name: "RT", Frequency: hz, CPUMask: cpu.Of(0)}, nil, []rt.Step{{Name: "sync", Exec: syncStep{s}}})
				if err != nil {
					b.Fatal(err)
				}
				if err := th.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				defer th.Stop()
				var pct, rate float64
				n := 0
				for b.Loop() {
					c0, u0, t0 := testenv.CPUTime(), s.m.updates.Get(), time.Now()
					time.Sleep(d)
					el := time.Since(t0)
					pct += float64(testenv.CPUTime()-c0) / float64(el) * 100
					rate += float64(s.m.updates.Get()-u0) / el.Seconds()
					n++
				}
				b.ReportMetric(pct/float64(n), "cpu-%")
				b.ReportMetric(rate/float64(n), "updates/s")
			})
		}
	}
}
