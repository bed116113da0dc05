package gam

import (
	"slices"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
)

// benchGAM executes g b.N times and reports the per-Execute latency
// distribution (p50, p99, max in ns) beside ns/op.
func benchGAM(b *testing.B, g GAM) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		sinkErr = g.Execute()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
	b.ReportMetric(float64(lat[len(lat)-1]), "max-ns")
}

func BenchmarkWaveform(b *testing.B) {
	cases := []struct {
		name string
		cfg  WaveformConfig
	}{
		{"sine/float32x1000", WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 1000, SamplingRate: 1e6, Type: datasource.Float32, Elements: 1000}},
		{"sine/float64x1000", WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 1000, SamplingRate: 1e6, Type: datasource.Float64, Elements: 1000}},
		{"sine/int16x1000", WaveformConfig{Shape: Sine, Amplitude: 30000, Frequency: 1000, SamplingRate: 1e6, Type: datasource.Int16, Elements: 1000}},
		{"square/float32x1000", WaveformConfig{Shape: Square, Amplitude: 1, Frequency: 1000, DutyCycle: 0.5, SamplingRate: 1e6, Type: datasource.Float32, Elements: 1000}},
		{"triangle/float32x1000", WaveformConfig{Shape: Triangle, Amplitude: 1, Frequency: 1000, SamplingRate: 1e6, Type: datasource.Float32, Elements: 1000}},
		{"noise/float32x1000", WaveformConfig{Shape: Noise, Amplitude: 1, Seed: 1, Type: datasource.Float32, Elements: 1000}},
		{"sine/scalar-float64", WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 10, Type: datasource.Float64, Elements: 1, CyclePeriod: time.Millisecond}},
		{"sine/scalar-uint32", WaveformConfig{Shape: Sine, Amplitude: 1000, Offset: 2000, Frequency: 10, Type: datasource.Uint32, Elements: 1, CyclePeriod: time.Millisecond}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchGAM(b, mustWaveform(b, c.cfg)) })
	}
}

func BenchmarkTimer(b *testing.B) {
	var c, t uint32
	benchGAM(b, NewTimer("timer", &c, &t))
}

func BenchmarkIOGAM(b *testing.B) {
	w := mustWaveform(b, WaveformConfig{Shape: Constant, Type: datasource.Float32, Elements: 1000})
	benchGAM(b, NewIOGAM("io", w.Outputs()))
}
