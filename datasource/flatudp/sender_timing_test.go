package flatudp

import (
	"runtime"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/latency"
)

// BenchmarkSynchronise is the RT thread's cost per cycle: copy into the
// ring, publish, post (a futex wake when the sender thread sleeps).
// queued: IndependentThread without triggers, the ring drained every 1024
// cycles outside the timer, so no cycle is refused; refused: the sender
// thread stalled, every cycle refused and counted.
func BenchmarkSynchronise(b *testing.B) {
	b.Run("queued", func(b *testing.B) {
		h := start(b, Config{NumberOfBuffers: 2048}, nil)
		setCycle(h.s, 1, false)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if i%1024 == 1023 {
				b.StopTimer()
				h.waitDrained()
				b.StartTimer()
			}
			sinkErr = h.s.Synchronise()
		}
		b.StopTimer()
		if o := h.s.m.overflows.Get(); o != 0 {
			b.Errorf("%d cycles refused", o)
		}
	})
	b.Run("refused", func(b *testing.B) {
		hd := newHolder()
		h := start(b, Config{ExecutionMode: realTimeThread, NumberOfBuffers: 1}, hd.hook)
		defer close(hd.release)
		hd.stall(h)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkErr = h.s.Synchronise()
		}
	})
}

// BenchmarkCycle is one RealTimeThread cycle end to end: Synchronise, the
// sender thread's wake-up, the byte-order conversion and the sendto, timed
// from Synchronise until the datagram is counted as sent. Latency
// percentiles are reported in µs.
func BenchmarkCycle(b *testing.B) {
	for _, order := range []wire.ByteOrder{wire.Little, wire.Big} {
		b.Run(order.String(), func(b *testing.B) {
			h := start(b, Config{ExecutionMode: realTimeThread, ByteOrder: order}, nil)
			lat := make([]time.Duration, 0, min(b.N, 1<<20))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				setCycle(h.s, uint32(i), false)
				t0 := time.Now()
				if err := h.s.Synchronise(); err != nil {
					b.Fatal(err)
				}
				for h.s.m.cyclesDone() < uint64(i+1) {
					runtime.Gosched()
				}
				if len(lat) < cap(lat) {
					lat = append(lat, time.Since(t0))
				}
			}
			b.StopTimer()
			latency.ReportDurations(b, lat, "", "µs")
		})
	}
}

// BenchmarkSend is the sender thread's throughput: the producer keeps the
// ring full (retrying refused cycles after the ring half drains) and ns/op
// is the time per datagram.
func BenchmarkSend(b *testing.B) {
	h := start(b, Config{ExecutionMode: realTimeThread, NumberOfBuffers: 256}, nil)
	setCycle(h.s, 1, false)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		if h.s.Synchronise() == nil {
			i++
			continue
		}
		for h.s.ring.depth() > 128 { // back off without posting
			runtime.Gosched()
		}
	}
	h.waitDrained()
	for h.s.m.cyclesDone() < uint64(b.N) {
		runtime.Gosched()
	}
	b.StopTimer()
	b.ReportMetric(float64(h.s.m.datagrams.Get())/b.Elapsed().Seconds(), "datagrams/s")
}

// cyclesDone returns the cycles the sender thread has handed to the socket.
func (m *senderMetrics) cyclesDone() uint64 { return m.sent.Get() }
