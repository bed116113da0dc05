package cpu

import (
	"testing"
	"time"
)

func BenchmarkMonotonicRawNanos(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkU += MonotonicRawNanos()
	}
}

func BenchmarkTimeSince(b *testing.B) {
	b.ReportAllocs()
	base := time.Now()
	for b.Loop() {
		sinkU += uint64(time.Since(base))
	}
}
