package client

import (
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/latency"
)

// BenchmarkNext measures one update of the burst configuration (4012-byte
// payload, 3 fragments at MaxPayloadSize 1400): the test server sends it over
// loopback and Next returns it. p50/p99/max are of that send-to-return latency.
func BenchmarkNext(b *testing.B) {
	sigs := burstSigs()
	srv, c := session(b, sigs, 1400)
	p := payload(b, sigs, 1, burstValues(5, 1000))
	var u Update
	lat := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	counter := uint32(0)
	for b.Loop() {
		t0 := time.Now()
		send(b, srv, counter, p)
		next(b, c, &u)
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
		counter++
	}
	latency.ReportDurations(b, lat, "", "ns")
}

// BenchmarkDecode measures decoding the burst update: Ch1 to float64 and its
// per-sample times.
func BenchmarkDecode(b *testing.B) {
	cfg := fuzzConfigs(b)[3]
	p := payload(b, cfg.Signals, 1, burstValues(5, 1000))
	var u Update
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if err := u.fill(cfg, 0, 0, p); err != nil {
			b.Fatal(err)
		}
		sinkF64 = u.Float64s(1)
		sinkF64 = u.Times(1)
	}
}
