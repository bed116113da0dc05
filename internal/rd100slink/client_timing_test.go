package rd100slink

import (
	"slices"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
)

func BenchmarkObserve(b *testing.B) {
	b.ReportAllocs()
	m := NewMonitor(MonitorConfig{})
	pkts := make([][]byte, 1024)
	for i := range pkts {
		pkts[i] = wire.AppendPacket(nil, &wire.Packet{Seq: uint32(i), TUs: uint64(i) * P, AzMdeg: int32(i)})
	}
	now := time.Now()
	for i := 0; b.Loop(); i++ {
		// Re-encode seq (offset 4) and t_us (offset 8) so the stream keeps
		// advancing in order.
		p := pkts[i%len(pkts)]
		p[4], p[5], p[6], p[7] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
		p[8], p[9], p[10], p[11] = byte(i*P), byte(i*P>>8), byte(i*P>>16), byte(i*P>>24)
		p[12] = byte(uint64(i) * P >> 32)
		sinkClass = m.Observe(p, now)
	}
}

// BenchmarkLoopbackReadOne measures write → ReadOne → Observe over
// 127.0.0.1, one datagram at a time, and reports the one-way latency.
func BenchmarkLoopbackReadOne(b *testing.B) {
	b.ReportAllocs()
	rx, tx, dst := loopPair(b)
	r := NewReceiver(rx, NewMonitor(MonitorConfig{}))
	buf := make([]byte, 0, wire.PacketSize)
	lat := make([]time.Duration, 0, 1<<16)
	seq := uint32(0)
	for b.Loop() {
		seq++
		buf = wire.AppendPacket(buf[:0], &wire.Packet{Seq: seq, TUs: uint64(seq) * P})
		start := time.Now()
		if _, err := tx.WriteToUDPAddrPort(buf, dst); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadOne(); err != nil {
			b.Fatal(err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(start))
		}
	}
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Nanoseconds()) }
	b.ReportMetric(q(0.5), "p50-ns")
	b.ReportMetric(q(0.99), "p99-ns")
	b.ReportMetric(q(1), "max-ns")
}
