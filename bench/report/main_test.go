package main

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func parseFile(t *testing.T, name string) *Run {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestParse(t *testing.T) {
	run := parseFile(t, "testdata/raw.txt")
	if run.Procs != 2 {
		t.Errorf("Procs = %d, want 2", run.Procs)
	}
	if got := run.Get("date"); got != "2026-11-30T09:00:00Z" {
		t.Errorf("date = %q", got)
	}
	if got := run.Get("cpu"); got != "AMD EPYC" {
		t.Errorf("cpu = %q", got)
	}
	if got := run.Get("loadavg"); !strings.HasPrefix(got, "0.52 ") {
		t.Errorf("loadavg = %q", got)
	}
	if run.Get("pkg") != "" {
		t.Error("pkg leaked into the header")
	}
	r := run.Find("datasource/udpstreamer", "Synchronise/64B/parked")
	if r == nil {
		t.Fatal("Synchronise/64B/parked not found")
	}
	if v, n := r.Median("p50-ns"); v != 5100 || n != 3 {
		t.Errorf("median p50-ns = %v over %d, want 5100 over 3", v, n)
	}
	if v, _ := run.Find("rt", "WakeLatency/1000Hz/Default/fifo").Median("p99-wake-µs"); v != 79 {
		t.Errorf("fifo p99 = %v", v)
	}
	// A name that ends in digits of its own keeps them.
	if run.Find("bench", "Sustained/64KiB-65507B") == nil {
		t.Error("Sustained/64KiB-65507B not found")
	}
	// Bare -v name lines and --- BENCH logs are not results.
	if run.Find("rt", "WakeLatency") != nil || run.Find("bench", "Cyclictest") != nil {
		t.Error("a -v name line was taken for a result")
	}
	if len(run.Skips) != 1 {
		t.Fatalf("skips = %+v", run.Skips)
	}
	s := run.Skips[0]
	if s.Pkg != "bench" || s.Name != "Cyclictest/1000Hz/fifo" || !strings.Contains(s.Reason, "permission denied") || strings.Contains(s.Reason, ".go:") {
		t.Errorf("skip = %+v", s)
	}
}

func TestParseNoProcsSuffix(t *testing.T) {
	// GOMAXPROCS=1: go test adds no suffix, so nothing may be stripped.
	in := "pkg: github.com/streamerd/streamerd/bench\n" +
		"BenchmarkSustained/64KiB-65507B \t 1 \t 5 ns/op \t 3 MB/s\n" +
		"BenchmarkLoopback/65507B \t 1 \t 5 ns/op \t 6 MB/s\n"
	run, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if run.Procs != 0 {
		t.Errorf("Procs = %d", run.Procs)
	}
	if run.Find("bench", "Sustained/64KiB-65507B") == nil || run.Find("bench", "Loopback/65507B") == nil {
		t.Errorf("names changed: %+v", run.Results)
	}
	// Mixed suffixes: strip nothing either.
	in = "pkg: github.com/streamerd/streamerd/x\nBenchmarkA-2 \t 1 \t 5 ns/op\nBenchmarkB-1400 \t 1 \t 5 ns/op\n"
	if run, _ = Parse(strings.NewReader(in)); run.Find("x", "A-2") == nil || run.Find("x", "B-1400") == nil {
		t.Errorf("mixed suffixes stripped: %+v", run.Results)
	}
}

func TestParseBadMetric(t *testing.T) {
	if _, err := Parse(strings.NewReader("BenchmarkA-2 \t 1 \t x ns/op\n")); err == nil {
		t.Error("want an error for a metric that is not a number")
	}
}

func find(rows []Row, fig, metric string) *Row {
	for i := range rows {
		if rows[i].Figure == fig && rows[i].Metric == metric {
			return &rows[i]
		}
	}
	return nil
}

// findBase is find for the row of fig and metric beside base, or the first
// row of fig and metric if there is none.
func findBase(rows []Row, fig, metric, base string) *Row {
	for i := range rows {
		if rows[i].Figure == fig && rows[i].Metric == metric && rows[i].Base == base {
			return &rows[i]
		}
	}
	return find(rows, fig, metric)
}

func TestPair(t *testing.T) {
	rows := Pair(parseFile(t, "testdata/raw.txt"), Rules())
	cases := []struct {
		fig, metric, base string
		ratio             float64
		past              bool
	}{
		{"Synchronise/64B/nowaiter", "p50-ns", "Synchronise/64B/copy", 2, false},
		{"Synchronise/64B/parked", "p50-ns", "Synchronise/64B/copy", 170, true},
		{"Encode/f32-uint8", "ns/elem", "Baseline/f32-uint8", 3, true},
		{"EndToEnd/Burst", "p50-us", "EndToEnd/Burst/bare", 16.76 / 5.588, false},
		{"WakeLatency/1000Hz/Default", "p99-wake-µs", "bench: Cyclictest/1000Hz/untuned", 2, false},
		{"Sustained/Burst", "wire-MB/s", "Loopback/1400B", 22.31 / 110.36, true},
		{"Sustained/64KiB-65507B", "wire-MB/s", "Loopback/65507B", 233.91 / 2950.30, true},
		{"Sustained/Burst", "cap-MB/s", "Loopback/1400B", 80.25 / 110.36, false},
		{"Sustained/Burst", "updates/s", "Sustained/Burst", 5490.0 / 19752, false},
		{"EncodeAVX2/f32-uint8", "ns/elem", "Baseline/f32-uint8", 0.3 / 0.4, false},
		{"Synchronise/64B/depth32", "p50-ns", "Synchronise/64B/copy", 1.3, false},
		{"Synchronise/64B/depth32", "p99-ns", "Synchronise/64B/copy", 45.0 / 31, true},
		{"EndToEnd/Burst/spin", "p50-us", "EndToEnd/Burst/bare", 2, false},
		{"NetworkSpin/1000Hz/spin=1ms", "cpu-%", "NetworkSpin/1000Hz/spin=0", 106.4 / 9.5, false},
		{"Sustained/Burst/depth32", "updates/s", "Sustained/Burst/depth32", 0.6, false},
		{"Sustained/Burst/depth32", "lost-ppm-2kHz", "Sustained/Burst", math.NaN(), true},
		// Encode/f32-* beside the float32 C kernel measured by BenchmarkVsC.
		{"Encode/f32-uint8", "ns/elem", "VsC/O3-native/f32-uint8", 1.2 / 0.2, true},
		{"VsC/O3-native/f32-uint8", "go-ns/elem", "VsC/O3-native/f32-uint8", 0.22 / 0.2, false},
		{"VsC/O3-x86-64-v3/avx2/f32-uint8", "go-ns/elem", "VsC/O3-x86-64-v3/avx2/f32-uint8", 0.4 / 0.25, true},
		{"VsC/O3-x86-64-v3/avx2/f64-uint8", "go-ns/elem", "VsC/O3-x86-64-v3/avx2/f64-uint8", 0.45 / 1.5, false},
	}
	for _, c := range cases {
		r := findBase(rows, c.fig, c.metric, c.base)
		if r == nil {
			t.Errorf("%s %s: no row", c.fig, c.metric)
			continue
		}
		ratioOK := math.Abs(r.Ratio-c.ratio) <= 1e-9 || math.IsNaN(c.ratio) && math.IsNaN(r.Ratio)
		if r.Base != c.base || !ratioOK || r.Past != c.past {
			t.Errorf("%s %s: base %q ratio %v past %v, want %q %v %v", c.fig, c.metric, r.Base, r.Ratio, r.Past, c.base, c.ratio, c.past)
		}
	}
	// Each float32 VsC figure is paired with the float32 C kernel (c32) by
	// its budget rule and with the exact C kernel (c) by the general one.
	var bases []string
	for _, r := range rows {
		if r.Figure == "VsC/O3-native/f32-uint8" {
			bases = append(bases, r.BaseMetric)
		}
	}
	if strings.Join(bases, " ") != "c32-ns/elem c-ns/elem" {
		t.Errorf("VsC/O3-native/f32-uint8 baselines %v, want c32-ns/elem then c-ns/elem", bases)
	}
	// The fifo wake figure's baseline was skipped: the row stays, without a ratio.
	r := find(rows, "WakeLatency/1000Hz/Default/fifo", "p50-wake-µs")
	if r == nil || !math.IsNaN(r.Ratio) || r.Base != "bench: Cyclictest/1000Hz/fifo/untuned" {
		t.Errorf("fifo row %+v", r)
	}
	// The same figure is paired with a second baseline by a later rule.
	n := 0
	for _, r := range rows {
		if r.Figure == "WakeLatency/1000Hz/Default" && r.Metric == "p99-wake-µs" {
			n++
			if n == 2 && (r.Base != "bench: Cyclictest/1000Hz" || math.Abs(r.Ratio-185.0/81) > 1e-9) {
				t.Errorf("second pairing %+v", r)
			}
		}
	}
	if n != 2 {
		t.Errorf("WakeLatency/1000Hz/Default p99 has %d rows, want 2", n)
	}
	// The scope's figures stand alone, and eight pages are set beside one.
	for _, c := range []struct {
		metric string
		ratio  float64
	}{{"cpu-%-per-1k-updates/s", 3}, {"frames/s", 1}} {
		n := 0
		for _, r := range rows {
			if r.Figure == "Scope/burst/viewers=8" && r.Metric == c.metric && r.Base == "Scope/burst/viewers=1" {
				n++
				if math.Abs(r.Ratio-c.ratio) > 1e-9 || r.Past {
					t.Errorf("scope %s row %+v", c.metric, r)
				}
			}
		}
		if n != 1 {
			t.Errorf("scope %s: %d rows beside one page", c.metric, n)
		}
	}
	if r := find(rows, "Scope/burst/viewers=1", "lost"); r == nil || !math.IsNaN(r.Ratio) || r.Value != 0 {
		t.Errorf("scope lost row %+v", r)
	}
	// A rule without a baseline lists the figure alone.
	if r := find(rows, "Sustained/Burst", "e2e-p99-µs"); r != nil || len(rows) == 0 {
		t.Errorf("e2e row without the metric in the input: %+v", r)
	}
	// A baseline is never a figure of its own rule.
	if find(rows, "Synchronise/64B/copy", "p50-ns") != nil || find(rows, "EndToEnd/Burst/bare", "p50-us") != nil {
		t.Error("a baseline was paired with itself")
	}
}

func TestWrite(t *testing.T) {
	run := parseFile(t, "testdata/raw.txt")
	var buf bytes.Buffer
	Write(&buf, run, Rules(), Machine{CPU: "ignored", Kernel: "6.1.0-test", Go: "go1.26.0", Cores: 2, Now: time.Unix(0, 0)})
	out := buf.String()
	for _, want := range []string{
		"| date | 2026-11-30T09:00:00Z |",
		"| CPU | AMD EPYC |",
		"| cores | 2 (GOMAXPROCS 2) |",
		"| kernel | 6.1.0-test |",
		"| Go | go1.26.0 |",
		"| loadavg | 0.52 0.80 1.10 2/300 1234 |",
		"## Synchronise on the RT thread",
		"| Synchronise/64B/nowaiter | p50-ns | 60.00 | Synchronise/64B/copy | 30.00 | **2.00×** | ≤ 2× |",
		"| Synchronise/64B/parked | p50-ns | 5100 (n=3) | Synchronise/64B/copy | 30.00 | **170.00×** | ≤ 2× **past** |",
		"| Sustained/Burst | cap-MB/s | 80.25 | Loopback/1400B (wire-MB/s) | 110.4 | **0.73×** |  |",
		"## Past their limit",
		"- Synchronise/64B/parked p50-ns: 170.00× its baseline (limit 2×)",
		"- Sustained/Burst/depth32 lost-ppm-2kHz: 100.0 (limit 0)",
		"| Sustained/Burst/depth32 | lost-ppm-2kHz | 100.0 | Sustained/Burst | — | — | value ≤ 0 **past** |",
		"## Skipped",
		"- bench: Cyclictest/1000Hz/fifo: cyclictest [-q]: exit status 1: permission denied",
		"| rt | WakeLatency/1000Hz/Default | 1017274 | 36.00 | 0 |",
		"| Encode/f32-uint8 | ns/elem | 1.20 | VsC/O3-native/f32-uint8 (c32-ns/elem) | 0.2 | **6.00×** | ≤ 1.2× **past** |",
		"| VsC/O3-x86-64-v3/avx2/f32-uint8 | go-ns/elem | 0.4 | VsC/O3-x86-64-v3/avx2/f32-uint8 (c32-ns/elem) | 0.25 | **1.60×** | ≤ 1.5× **past** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "ignored") {
		t.Error("the machine's CPU replaced the run's cpu line")
	}
	if t.Failed() {
		t.Log(out)
	}
}

func TestNum(t *testing.T) {
	for _, c := range []struct {
		v    float64
		n    int
		want string
	}{{0, 1, "0"}, {1234.5, 1, "1234"}, {123.45, 1, "123.5"}, {1.234, 1, "1.23"}, {0.01234, 1, "0.0123"}, {5, 3, "5.00 (n=3)"}} {
		if got := num(c.v, c.n); got != c.want {
			t.Errorf("num(%v, %d) = %q, want %q", c.v, c.n, got, c.want)
		}
	}
}
