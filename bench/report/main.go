// Command report turns `go test -bench` output into bench/results.md: each figure beside its baseline and the ratio, with the machine and the date.
//
// Usage:
//
//	go test -run '^$' -bench . -v ./... | tee bench/raw.txt
//	go run ./bench/report < bench/raw.txt > bench/results.md
//
// Figures are paired with baselines by the rules table below (a figure's
// package and name pattern, the baseline's, the metric of each). With
// -count N the median of the N samples is used. Ratios are figure divided
// by baseline; where a budget sets a limit (Synchronise within 2× of a bare
// copy, a quantisation kernel within 2× of a plain loop, the float32
// kernels within 1.2× (AVX-512) and 1.5× (AVX2) of a float32 C kernel,
// sustained throughput at least half the kernel's loopback) a ratio past
// it is flagged. Lines the parser does not know are ignored, so raw.txt may carry
// extra "key: value" header lines (date, load average, command) which are
// shown in the report. Skip reasons appear when the run used -v.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "", "write the report to this file instead of stdout")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: report [-o results.md] [raw.txt ...]  (stdin when no file)")
		flag.PrintDefaults()
	}
	flag.Parse()
	var in io.Reader = os.Stdin
	if flag.NArg() > 0 {
		var rs []io.Reader
		for _, name := range flag.Args() {
			f, err := os.Open(name)
			if err != nil {
				fatal(err)
			}
			defer f.Close()
			rs = append(rs, f)
		}
		in = io.MultiReader(rs...)
	}
	run, err := Parse(in)
	if err != nil {
		fatal(err)
	}
	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	Write(bw, run, Rules(), LocalMachine())
	if err := bw.Flush(); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

// Result is every sample of one benchmark: metric unit to values, one per
// line of output (several with -count).
type Result struct {
	Pkg     string // package path without the module prefix, e.g. "rt"
	Name    string // without "Benchmark" and the -GOMAXPROCS suffix
	Metrics map[string][]float64
	order   int
}

// Median returns the median of metric m and the number of samples.
func (r *Result) Median(m string) (float64, int) {
	v := r.Metrics[m]
	if len(v) == 0 {
		return math.NaN(), 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], len(s)
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, len(s)
}

// Skip is a benchmark skipped with its reason (seen with -v).
type Skip struct {
	Pkg, Name, Reason string
}

// Run is one parsed `go test -bench` output.
type Run struct {
	Header  []KV // "key: value" lines outside packages (date, loadavg, ...) and goos/goarch/cpu
	Results []*Result
	Skips   []Skip
	Procs   int // the -N suffix GOMAXPROCS, 0 if none was seen
	byKey   map[string]*Result
}

// KV is a header line.
type KV struct{ Key, Value string }

// Get returns the header value for key, or "".
func (r *Run) Get(key string) string {
	for _, kv := range r.Header {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Find returns the result of pkg and name, or nil.
func (r *Run) Find(pkg, name string) *Result { return r.byKey[pkg+"\x00"+name] }

const module = "github.com/streamerd/streamerd/"

var headerLine = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):\s*(.*)$`)

// Parse reads `go test -bench` output (with or without -v, any -count, any
// number of packages).
func Parse(in io.Reader) (*Run, error) {
	run := &Run{byKey: map[string]*Result{}}
	type line struct {
		pkg, name string
		fields    []string
	}
	var lines []line
	pkg := ""
	var pending []string // indented output since the last benchmark line
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		t := sc.Text()
		switch {
		case strings.HasPrefix(t, "Benchmark"):
			f := strings.Fields(t)
			if len(f) >= 4 && isInt(f[1]) {
				lines = append(lines, line{pkg, f[0], f[1:]})
			}
			pending = pending[:0]
		case strings.HasPrefix(t, "--- SKIP: Benchmark"):
			name := strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(t, "--- SKIP:")), "Benchmark")
			if i := strings.IndexByte(name, ' '); i >= 0 {
				name = name[:i]
			}
			run.Skips = append(run.Skips, Skip{pkg, name, strings.Join(pending, "; ")})
			pending = pending[:0]
		case strings.HasPrefix(t, "    ") || strings.HasPrefix(t, "\t"):
			pending = append(pending, stripFileLine(strings.TrimSpace(t)))
		case strings.HasPrefix(t, "ok ") || strings.HasPrefix(t, "FAIL") || t == "PASS":
			pending = pending[:0]
		default:
			m := headerLine.FindStringSubmatch(t)
			if m == nil {
				continue
			}
			if m[1] == "pkg" {
				pkg = strings.TrimPrefix(m[2], module)
				continue
			}
			if run.Get(m[1]) == "" {
				run.Header = append(run.Header, KV{m[1], m[2]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// The -N suffix is GOMAXPROCS, the same on every line of a run; it is
	// stripped only when every line carries it, since a name may end in
	// digits of its own.
	procs := ""
	for i, l := range lines {
		j := strings.LastIndexByte(l.name, '-')
		if j < 0 || !isInt(l.name[j+1:]) || (i > 0 && l.name[j+1:] != procs) {
			procs = ""
			break
		}
		procs = l.name[j+1:]
	}
	run.Procs, _ = strconv.Atoi(procs)
	for _, l := range lines {
		name := strings.TrimPrefix(l.name, "Benchmark")
		if procs != "" {
			name = strings.TrimSuffix(name, "-"+procs)
		}
		r := run.byKey[l.pkg+"\x00"+name]
		if r == nil {
			r = &Result{Pkg: l.pkg, Name: name, Metrics: map[string][]float64{}, order: len(run.Results)}
			run.byKey[l.pkg+"\x00"+name] = r
			run.Results = append(run.Results, r)
		}
		for k := 1; k+1 < len(l.fields); k += 2 {
			v, err := strconv.ParseFloat(l.fields[k], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark %s: metric %q: %v", l.name, l.fields[k+1], err)
			}
			r.Metrics[l.fields[k+1]] = append(r.Metrics[l.fields[k+1]], v)
		}
	}
	return run, nil
}

func isInt(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

var fileLine = regexp.MustCompile(`^[\w.-]+\.go:\d+: `)

func stripFileLine(s string) string { return fileLine.ReplaceAllString(s, "") }

// Rule pairs figures with baselines. Every result of Pkg whose name matches
// Figure is a figure; its baseline is the result of BasePkg named by
// expanding Base with the match's groups (regexp.Expand syntax). Each metric
// of Metrics is compared with the same metric of the baseline, or with
// BaseMetric when set (a baseline reported on the figure's own line, such
// as a budget, uses Base "$0"). An empty Base lists the figure alone.
type Rule struct {
	Section      string
	Pkg, Figure  string
	BasePkg      string // defaults to Pkg
	Base         string
	Metrics      []string
	BaseMetric   string
	HigherBetter bool    // throughput: a ratio below 1 is worse
	Limit        float64 // the ratio the budget allows (0: none)
	// ValueLimited bounds the figure's own value, not its ratio: the
	// budget is Value ≤ ValueMax.
	ValueLimited bool
	ValueMax     float64
	Note         string
}

// Rules is the pairing table.
func Rules() []Rule {
	lat := []string{"p50-ns", "p99-ns"}
	wake := []string{"p50-wake-µs", "p99-wake-µs", "max-wake-µs"}
	return []Rule{
		{Section: "Synchronise on the RT thread", Pkg: "datasource/udpstreamer",
			Figure: `^Synchronise/(\w+)/(nowaiter|parked)$`, Base: "Synchronise/$1/copy", Metrics: lat, Limit: 2,
			Note: "FastLock, copy, stamp, unlock, post; beside a bare copy of the same size"},
		{Section: "Synchronise on the RT thread", Pkg: "datasource/udpstreamer",
			Figure: `^Synchronise/(\w+)/depth32$`, Base: "Synchronise/$1/copy", Metrics: lat, Limit: 1.3,
			Note: "HandOffDepth 32, each cycle taken back as a network thread that keeps up would; beside a bare copy"},
		{Section: "Synchronise on the RT thread", Pkg: "datasource/udpstreamer",
			Figure: `^Synchronise/(\w+)/depth32full$`, Base: "Synchronise/$1/copy", Metrics: lat,
			Note: "HandOffDepth 32 with the ring full: every call overwrites the oldest cycle, in a buffer not written for 32 calls"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^Encode/(.+)$`, Base: "Baseline/$1", Metrics: []string{"ns/elem"}, Limit: 2,
			Note: "scale, clamp, round, NaN check; beside a bare float-to-int loop"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^EncodePortable/(.+)$`, Base: "Baseline/$1", Metrics: []string{"ns/elem"},
			Note: "the plain Go kernel whatever the build"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^EncodeAVX2/(.+)$`, Base: "Baseline/$1", Metrics: []string{"ns/elem"},
			Note: "the AVX2 kernel, for CPUs without AVX-512, whatever this CPU's best"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^Encode/(f32-.+)$`, Base: "VsC/O3-native/$1", Metrics: []string{"ns/elem"}, BaseMetric: "c32-ns/elem", Limit: 1.2,
			Note: "float32 samples, the selected kernel (AVX-512 on a CPU with it) beside the float32 C kernel (clamp, scale, round in float32; not exact) -O3 -march=native, timed by BenchmarkVsC"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^VsC/O3-native/(f32-.+)$`, Base: "$0", Metrics: []string{"go-ns/elem"}, BaseMetric: "c32-ns/elem", Limit: 1.2,
			Note: "the same, both timed alike in one process (median of best of 15 batches of 2000 calls)"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^VsC/O3-x86-64-v3/avx2/(f32-.+)$`, Base: "$0", Metrics: []string{"go-ns/elem"}, BaseMetric: "c32-ns/elem", Limit: 1.5,
			Note: "float32 samples, the AVX2 kernel beside the float32 C kernel -O3 -march=x86-64-v3"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^VsC/O3-x86-64-v3/avx2/(f64-.+)$`, Base: "$0", Metrics: []string{"go-ns/elem"}, BaseMetric: "c-ns/elem", Limit: 1.5,
			Note: "float64 samples, the AVX2 kernel beside the exact C kernel -O3 -march=x86-64-v3 (which GCC leaves scalar)"},
		{Section: "Quantisation kernels", Pkg: "quant",
			Figure: `^VsC/(.+)$`, Base: "$0", Metrics: []string{"go-ns/elem"}, BaseMetric: "c-ns/elem",
			Note: "beside the exact C kernel (quant's float64 arithmetic) compiled on this machine: selected kernel and -march=native, AVX2 and -march=x86-64-v3, portable and scalar"},
		{Section: "Serialise, fragment and send one update", Pkg: "datasource/udpstreamer",
			Figure: `^SerialiseFragmentSend/(\w+)/(gso|sendmmsg|auto)$`, Base: "SerialiseFragmentSend/$1/sendto", Metrics: []string{"ns/op"},
			Note: "per send method, beside a sendto loop"},
		{Section: "End to end on loopback", Pkg: "datasource/udpstreamer",
			Figure: `^EndToEnd/(\w+)$`, Base: "EndToEnd/$1/bare", Metrics: []string{"p50-us", "p99-us", "max-us"},
			Note: "Synchronise to the last fragment at the client; beside the same datagrams sent and received bare"},
		{Section: "End to end on loopback", Pkg: "datasource/udpstreamer",
			Figure: `^EndToEnd/(\w+)/poll$`, Base: "EndToEnd/$1/bare", Metrics: []string{"p50-us", "p99-us", "max-us"},
			Note: "the same, the client polling its socket instead of blocking (its own wake-up left out)"},
		{Section: "End to end on loopback", Pkg: "datasource/udpstreamer",
			Figure: `^EndToEnd/(\w+)/spin$`, Base: "EndToEnd/$1/bare", Metrics: []string{"p50-us"}, Limit: 2,
			Note: "network thread pinned with NetworkSpin 1 ms, client polling on the other CPU"},
		{Section: "End to end on loopback", Pkg: "datasource/udpstreamer",
			Figure: `^EndToEnd/(\w+)/spin$`, Base: "EndToEnd/$1/bare", Metrics: []string{"p99-us", "max-us"}},
		{Section: "End to end on loopback", Pkg: "datasource/udpstreamer",
			Figure: `^NetworkSpin/(\w+)/spin=(\w+)$`, Base: "NetworkSpin/$1/spin=0", Metrics: []string{"cpu-%"},
			Note: "CPU of the whole process (RT thread, network thread, client), % of one core, streaming the burst: with a spin, beside none"},
		{Section: "Waiting for the next cycle", Pkg: "datasource/udpstreamer",
			Figure: `^Wait/(\w+)/paced$`, Base: "$0", Metrics: []string{"sync-p50-ns"}, BaseMetric: "copy-p50-ns", Limit: 1.5,
			Note: "Synchronise at 1 kHz with the default (paced) wait, beside a bare copy of the same signal memory in the same cycle"},
		{Section: "Waiting for the next cycle", Pkg: "datasource/udpstreamer",
			Figure: `^Wait/(\w+)/(spin|park|paced/fifo|spin/fifo|park/fifo)$`, Base: "$0", Metrics: []string{"sync-p50-ns"}, BaseMetric: "copy-p50-ns",
			Note: "the same with the other waits, and at SCHED_FIFO"},
		{Section: "Waiting for the next cycle", Pkg: "datasource/udpstreamer",
			Figure: `^Wait/Scalar/paced$`, Base: "Wait/Scalar/bare", Metrics: []string{"e2e-p50-us"}, Limit: 2,
			Note: "Synchronise to the update at a client blocked in its read, at 1 kHz with the default wait; beside one datagram sent at the same rate to a reader blocked the same way"},
		{Section: "Waiting for the next cycle", Pkg: "datasource/udpstreamer",
			Figure: `^Wait/(\w+)/(paced|spin|park)(/fifo)?$`, Base: "Wait/$1/bare$3", Metrics: []string{"e2e-p50-us", "e2e-p99-us"},
			Note: "the same for every wait"},
		{Section: "Waiting for the next cycle", Pkg: "datasource/udpstreamer",
			Figure: `^Wait/(\w+)/paced$`, Metrics: []string{"net-cpu-%"}, ValueMax: 5, ValueLimited: true,
			Note: "the network thread's CPU, % of one CPU, at 1 kHz with the default wait"},
		{Section: "Waiting for the next cycle", Pkg: "datasource/udpstreamer",
			Figure: `^Wait/(\w+)/(paced|spin|park)(/fifo)?$`, Metrics: []string{"net-cpu-%", "wakeups-%"},
			Note: "the network thread's CPU, and the Synchronise calls that woke it (a system call), per wait"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(Burst|64KiB-1400B)(/fifo)?$`, Base: "Loopback/1400B", Metrics: []string{"wire-MB/s"}, HigherBetter: true, Limit: 0.5,
			Note: "largest rate held with 0 lost; beside a tight sendto loop of 1400 B datagrams"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(64KiB-65507B)(/fifo)?$`, Base: "Loopback/65507B", Metrics: []string{"wire-MB/s"}, HigherBetter: true, Limit: 0.5,
			Note: "largest rate held with 0 lost; beside a tight sendto loop of 65507 B datagrams"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(Burst|64KiB-1400B)(/fifo)?$`, Base: "Loopback/1400B", Metrics: []string{"cap-MB/s"}, BaseMetric: "wire-MB/s", HigherBetter: true,
			Note: "flat-out capacity (Synchronise back to back, skips allowed)"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(64KiB-65507B)(/fifo)?$`, Base: "Loopback/65507B", Metrics: []string{"cap-MB/s"}, BaseMetric: "wire-MB/s", HigherBetter: true,
			Note: "flat-out capacity (Synchronise back to back, skips allowed)"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/([^/]+)(/fifo)?$`, Base: "$0", Metrics: []string{"updates/s"}, BaseMetric: "cap-updates/s", HigherBetter: true,
			Note: "held with 0 lost, beside the flat-out capacity of the same run"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(Burst|64KiB-1400B)/depth32(/fifo)?$`, Base: "$0", Metrics: []string{"updates/s"}, BaseMetric: "cap-updates/s", HigherBetter: true, Limit: 0.5,
			Note: "HandOffDepth 32: held with 0 lost, beside the flat-out capacity of the same case"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/Burst/depth1024(/fifo)?$`, Base: "$0", Metrics: []string{"updates/s"}, BaseMetric: "cap-updates/s", HigherBetter: true,
			Note: "HandOffDepth 1024 (22 ms at 45 000 updates/s): held with 0 lost, beside the flat-out capacity of the same case"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(Burst|64KiB-1400B)/depth32(/fifo)?$`, Base: "Sustained/$1$2", Metrics: []string{"lost-ppm-2kHz"}, ValueMax: 0, ValueLimited: true,
			Note: "HandOffDepth 32: updates lost per million at 2000/s (must be 0), beside the default hand-off"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(.+)/fifo$`, Base: "Sustained/$1", Metrics: []string{"lost-ppm-2kHz"},
			Note: "updates lost per million at 2000/s: network thread at SCHED_FIFO and pinned, beside normal scheduling"},
		{Section: "Sustained throughput", Pkg: "bench",
			Figure: `^Sustained/(.+)$`, Metrics: []string{"e2e-p50-µs", "e2e-p99-µs", "e2e-max-µs", "burst-max"},
			Note: "Synchronise to whole update at the client, at the rate held; burst-max, the most updates the pacer published on one late wake-up"},
		{Section: "RT thread wake-up", Pkg: "rt",
			Figure: `^WakeLatency/(\d+Hz)/(\w+)$`, BasePkg: "bench", Base: "Cyclictest/$1/untuned", Metrics: wake,
			Note: "normal scheduling; beside cyclictest -p 0 --default-system on the same CPU (like for like)"},
		{Section: "RT thread wake-up", Pkg: "rt",
			Figure: `^WakeLatency/(\d+Hz)/(\w+)/fifo$`, BasePkg: "bench", Base: "Cyclictest/$1/fifo/untuned", Metrics: wake,
			Note: "SCHED_FIFO 80; beside cyclictest -p 80 --default-system on the same CPU (like for like)"},
		{Section: "RT thread wake-up, beside cyclictest as people run it", Pkg: "rt",
			Figure: `^WakeLatency/(\d+Hz)/(\w+)$`, BasePkg: "bench", Base: "Cyclictest/$1", Metrics: wake,
			Note: "normal scheduling; cyclictest holds /dev/cpu_dma_latency at 0, rt does not"},
		{Section: "RT thread wake-up, beside cyclictest as people run it", Pkg: "rt",
			Figure: `^WakeLatency/(\d+Hz)/(\w+)/fifo$`, BasePkg: "bench", Base: "Cyclictest/$1/fifo", Metrics: wake,
			Note: "SCHED_FIFO 80; cyclictest holds /dev/cpu_dma_latency at 0, rt does not"},
		{Section: "RD100S cadence", Pkg: "datasource/rd100s",
			Figure: `^Cadence/(\w+)$`, Base: "$0", Metrics: []string{"late-p99-µs", "late-max-µs", "period-dev-p99-µs", "period-dev-max-µs"}, BaseMetric: "budget-µs", Limit: 1,
			Note: "beside the ±2 ms budget of the spec"},
		{Section: "Web scope on configs/burst.toml", Pkg: "internal/scope",
			Figure: `^Scope/burst/viewers=(\d+)$`, Metrics: []string{"frames/s", "updates/s", "cpu-%", "cpu-%-per-1k-updates/s", "frame-MB/s", "lost"},
			Note: "frames/s delivered to each page (acknowledged; 30 at most), the scope's CPU (% of one core) and that per 1000 updates/s, lost in the scope's own session (must be 0)"},
		{Section: "Web scope on configs/burst.toml", Pkg: "internal/scope",
			Figure: `^Scope/burst/viewers=8$`, Base: "Scope/burst/viewers=1", Metrics: []string{"cpu-%-per-1k-updates/s"},
			Note: "eight pages beside one: what the fan-out costs"},
		{Section: "Web scope on configs/burst.toml", Pkg: "internal/scope",
			Figure: `^Scope/burst/viewers=8$`, Base: "Scope/burst/viewers=1", Metrics: []string{"frames/s"}, HigherBetter: true, Limit: 0.5,
			Note: "eight pages beside one: each page keeps at least half the frame rate"},
	}
}

// Row is one figure beside its baseline.
type Row struct {
	Figure, Metric, Base, BaseMetric string
	Value, BaseValue                 float64
	N, BaseN                         int
	Ratio                            float64 // NaN without a baseline
	Past                             bool    // ratio beyond the rule's limit
	Rule                             *Rule
}

// Pair applies the rules to run, in rule order then output order.
func Pair(run *Run, rules []Rule) []Row {
	var rows []Row
	for i := range rules {
		ru := &rules[i]
		re := regexp.MustCompile(ru.Figure)
		basePkg := ru.BasePkg
		if basePkg == "" {
			basePkg = ru.Pkg
		}
		for _, r := range run.Results {
			if r.Pkg != ru.Pkg {
				continue
			}
			m := re.FindStringSubmatchIndex(r.Name)
			if m == nil {
				continue
			}
			var base *Result
			baseName := ""
			if ru.Base != "" {
				baseName = string(re.ExpandString(nil, ru.Base, r.Name, m))
				base = run.Find(basePkg, baseName)
			}
			for _, met := range ru.Metrics {
				v, n := r.Median(met)
				if n == 0 {
					continue
				}
				row := Row{Figure: r.Name, Metric: met, Value: v, N: n, Ratio: math.NaN(), Rule: ru, Base: baseName, BaseMetric: met}
				if ru.BaseMetric != "" {
					row.BaseMetric = ru.BaseMetric
				}
				if basePkg != ru.Pkg && baseName != "" {
					row.Base = basePkg + ": " + baseName
				}
				if base != nil {
					if bv, bn := base.Median(row.BaseMetric); bn > 0 {
						row.BaseValue, row.BaseN = bv, bn
						if bv != 0 {
							row.Ratio = v / bv
						}
					}
				}
				if ru.ValueLimited {
					row.Past = row.Value > ru.ValueMax
				}
				if ru.Limit > 0 && !math.IsNaN(row.Ratio) {
					if ru.HigherBetter {
						row.Past = row.Ratio < ru.Limit
					} else {
						row.Past = row.Ratio > ru.Limit
					}
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// Machine describes where the report is written.
type Machine struct {
	CPU, Kernel, Go string
	Cores           int
	Now             time.Time
}

// LocalMachine reads this machine's description.
func LocalMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Now: time.Now().UTC()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for l := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// Write renders the report.
func Write(w io.Writer, run *Run, rules []Rule, mach Machine) {
	fmt.Fprintln(w, "# Benchmark results")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Written by `go run ./bench/report` from `go test -bench` output; see BENCHMARKS.md for what each figure means.")
	fmt.Fprintln(w, "Ratios are the headline: absolute numbers move from machine to machine, a figure and its baseline measured in the same run do not.")
	fmt.Fprintln(w)
	cpuModel := run.Get("cpu")
	if cpuModel == "" {
		cpuModel = mach.CPU
	}
	date := run.Get("date")
	if date == "" {
		date = mach.Now.Format(time.RFC3339)
	}
	fmt.Fprintln(w, "| machine | |")
	fmt.Fprintln(w, "| --- | --- |")
	fmt.Fprintf(w, "| date | %s |\n", date)
	fmt.Fprintf(w, "| CPU | %s |\n", cpuModel)
	if run.Procs > 0 {
		fmt.Fprintf(w, "| cores | %d (GOMAXPROCS %d) |\n", mach.Cores, run.Procs)
	} else {
		fmt.Fprintf(w, "| cores | %d |\n", mach.Cores)
	}
	fmt.Fprintf(w, "| kernel | %s |\n", mach.Kernel)
	fmt.Fprintf(w, "| Go | %s |\n", mach.Go)
	for _, kv := range run.Header {
		switch kv.Key {
		case "cpu", "date":
		default:
			fmt.Fprintf(w, "| %s | %s |\n", kv.Key, mdEscape(kv.Value))
		}
	}
	fmt.Fprintln(w)

	rows := Pair(run, rules)
	var past []Row
	var sections []string
	bySection := map[string][]Row{}
	for _, row := range rows {
		sec := row.Rule.Section
		if bySection[sec] == nil {
			sections = append(sections, sec)
		}
		bySection[sec] = append(bySection[sec], row)
	}
	for _, sec := range sections {
		fmt.Fprintf(w, "## %s\n\n", sec)
		fmt.Fprintln(w, "| figure | metric | value | baseline | value | ratio | limit |")
		fmt.Fprintln(w, "| --- | --- | ---: | --- | ---: | ---: | --- |")
		for _, row := range bySection[sec] {
			lim := ""
			switch {
			case row.Rule.ValueLimited:
				lim = fmt.Sprintf("value ≤ %g", row.Rule.ValueMax)
			case row.Rule.Limit > 0 && row.Rule.HigherBetter:
				lim = fmt.Sprintf("≥ %g×", row.Rule.Limit)
			case row.Rule.Limit > 0:
				lim = fmt.Sprintf("≤ %g×", row.Rule.Limit)
			}
			if row.Past {
				lim += " **past**"
				past = append(past, row)
			}
			base, bv, ratio := "—", "—", "—"
			if row.Base != "" {
				base = row.Base
				if row.BaseMetric != row.Metric {
					base += " (" + row.BaseMetric + ")"
				}
			}
			if row.BaseN > 0 {
				bv = num(row.BaseValue, row.BaseN)
			}
			if !math.IsNaN(row.Ratio) {
				ratio = fmt.Sprintf("**%.2f×**", row.Ratio)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", row.Figure, row.Metric, num(row.Value, row.N), base, bv, ratio, lim)
		}
		fmt.Fprintln(w)
		seen := map[string]bool{}
		for _, ru := range rules {
			if ru.Section == sec && ru.Note != "" && !seen[ru.Note] {
				seen[ru.Note] = true
				fmt.Fprintf(w, "- `%s` (%s): %s\n", ru.Figure, ru.Pkg, ru.Note)
			}
		}
		fmt.Fprintln(w)
	}
	if len(past) > 0 {
		fmt.Fprintln(w, "## Past their limit")
		fmt.Fprintln(w)
		for _, row := range past {
			if row.Rule.ValueLimited {
				fmt.Fprintf(w, "- %s %s: %s (limit %g)\n", row.Figure, row.Metric, num(row.Value, 1), row.Rule.ValueMax)
				continue
			}
			fmt.Fprintf(w, "- %s %s: %.2f× its baseline (limit %g×)\n", row.Figure, row.Metric, row.Ratio, row.Rule.Limit)
		}
		fmt.Fprintln(w)
	}
	if len(run.Skips) > 0 {
		fmt.Fprintln(w, "## Skipped")
		fmt.Fprintln(w)
		for _, s := range run.Skips {
			fmt.Fprintf(w, "- %s: %s: %s\n", s.Pkg, s.Name, mdEscape(s.Reason))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "## Every benchmark")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| package | benchmark | ns/op | B/op | allocs/op |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: |")
	for _, r := range run.Results {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.Pkg, r.Name, med(r, "ns/op"), med(r, "B/op"), med(r, "allocs/op"))
	}
}

func med(r *Result, m string) string {
	v, n := r.Median(m)
	if n == 0 {
		return "—"
	}
	return num(v, 1)
}

// num formats v with about four significant digits, and the sample count
// when it is a median of several.
func num(v float64, n int) string {
	var s string
	switch a := math.Abs(v); {
	case a == 0:
		s = "0"
	case a >= 1000:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if n > 1 {
		s += fmt.Sprintf(" (n=%d)", n)
	}
	return s
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
