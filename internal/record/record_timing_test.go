package record

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// burstSignals are configs/burst.toml's: T0 and 1000 samples at 1 MS/s.
func burstSignals() []datasource.Signal {
	return []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 1000, Unit: "V",
			TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 1e6},
	}
}

// fillBurst writes cycle i of the burst into signal memory or a payload
// (a 10 kHz sine sampled at 1 MS/s from T0, with a little noise so pages
// do not compress to nothing).
func fillBurst(t0 []byte, ch1 []byte, i int) {
	binary.LittleEndian.PutUint32(t0, uint32(i*1000))
	for k := range 1000 {
		v := 5*math.Sin(2*math.Pi*1e4*(float64(i)*1e-3+float64(k)*1e-6)) + float64((i*7919+k*104729)%1000)*1e-6
		binary.LittleEndian.PutUint32(ch1[4*k:], math.Float32bits(float32(v)))
	}
}

// noise flips the 4 low mantissa bits of every float32 in b by an LCG.
func noise(b []byte, seed uint32) {
	x := seed*2654435761 + 1
	for k := 0; k+4 <= len(b); k += 4 {
		x = x*1664525 + 1013904223
		b[k] ^= byte(x>>28) & 0x0F
	}
}

// BenchmarkCommitBurst measures the recorder alone on rows of
// configs/burst.toml: filling a row from a client Update, committing it,
// row groups of 2 s of recorded time written to a file. One op is one row.
func BenchmarkCommitBurst(b *testing.B) {
	for _, comp := range []string{"snappy", "zstd", "none"} {
		b.Run(comp, func(b *testing.B) {
			s := startStreamer(b, burstSignals(), 1)
			c, cfg := connect(b, s)
			s.Synchronise()
			var u client.Update
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if err := c.Next(&u); err != nil {
				b.Fatal(err)
			}
			l, err := ForUDPStreamer("bench", cfg.Signals, false)
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			r, err := Create(l, Options{Path: filepath.Join(dir, "burst.parquet"), Compression: comp})
			if err != nil {
				b.Fatal(err)
			}
			// 64 different cycles, copied in turn into the payload the
			// client received with noise in the low bits of every sample
			// (no two rows alike): the loop measures the recorder, not
			// math.Sin.
			t0, ch1 := u.Raw(0), u.Raw(1)
			var cycles [64][4000]byte
			for i := range cycles {
				fillBurst(t0, cycles[i][:], i)
			}
			start := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := testenv.CPUTime()
			for i := range b.N {
				binary.LittleEndian.PutUint32(t0, uint32(i*1000))
				copy(ch1, cycles[i%len(cycles)][:])
				noise(ch1, uint32(i))
				u.Counter = uint32(i)
				r.Row().UDPStreamer(&u, start.Add(time.Duration(i)*time.Millisecond), 0, 0)
				if err := r.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cpuUsed := testenv.CPUTime() - cpu0
			sec := b.Elapsed().Seconds()
			st := r.Stats()
			b.ReportMetric(float64(b.N)/sec, "rows/s")
			b.ReportMetric(float64(st.Bytes)/1e6/sec, "MB/s")
			b.ReportMetric(float64(b.N)*4004/1e6/sec, "signal-MB/s")
			b.ReportMetric(cpuUsed.Seconds()*1e3/float64(b.N)*1000, "cpu-ms/1000rows")
			b.ReportMetric(float64(st.Bytes)/float64(b.N), "file-B/row")
		})
	}
}

// BenchmarkRecordBurstLive records configs/burst.toml's stream live: a
// producer in the process publishes one 1000-sample cycle every 1 ms
// (absolute deadlines), a recorder holds a session with it over loopback
// and writes the file. One op is one cycle; it reports what the recorder
// lost (the network and the recorder's share) and the process's CPU per
// 1000 rows (producer, network thread and recorder together).
func BenchmarkRecordBurstLive(b *testing.B) {
	s := startStreamer(b, burstSignals(), 16)
	path := filepath.Join(b.TempDir(), "live.parquet")
	sess := NewSession(Options{Path: path}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = sess.Run(ctx, &UDPStreamerSource{Server: s.LocalAddr().String()}) })
	for !sessionClient(s).IsValid() {
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	cpu0 := testenv.CPUTime()
	next := cpu.MonotonicNanos()
	for i := range b.N {
		next += int64(time.Millisecond)
		cpu.SleepUntil(next)
		fillBurst(testenv.Must(s.GetSignalMemoryBuffer(0)), testenv.Must(s.GetSignalMemoryBuffer(1)), i)
		s.Synchronise()
	}
	deadline := time.Now().Add(10 * time.Second)
	for st := sess.Stats(); st.Rows+st.Lost+st.Skipped < uint64(b.N) && time.Now().Before(deadline); st = sess.Stats() {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	cpuUsed := testenv.CPUTime() - cpu0
	sec := b.Elapsed().Seconds()
	cancel()
	wg.Wait()
	if runErr != nil {
		b.Fatal(runErr)
	}
	st := sess.Stats()
	fi, _ := os.Stat(path)
	b.ReportMetric(float64(st.Rows)/sec, "rows/s")
	b.ReportMetric(float64(st.Lost), "lost")
	b.ReportMetric(float64(st.Skipped), "skipped")
	if fi != nil {
		b.ReportMetric(float64(fi.Size())/1e6/sec, "MB/s")
	}
	b.ReportMetric(cpuUsed.Seconds()*1e3/float64(max(st.Rows, 1))*1000, "process-cpu-ms/1000rows")
}
