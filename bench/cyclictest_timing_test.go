package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/streamerd/streamerd/rt/cpu"
)

// BenchmarkCyclictest runs cyclictest (rt-tests) with the period, policy
// and CPU of rt's BenchmarkWakeLatency, for b.N loops, so the two can be set
// side by side: same machine, same run, same number of cycles. It reports
// the wake-up latency (actual minus intended wake-up, µs) as p50-wake-µs,
// p99-wake-µs and max-wake-µs (the units rt uses), plus cyclictest's own
// min and avg. Names mirror rt's: 1000Hz, 1000Hz/fifo (SCHED_FIFO 80),
// 10000Hz, 10000Hz/fifo. cyclictest sleeps with clock_nanosleep, like rt's
// Default sleep nature; it is the baseline for Busy and Hybrid too.
//
// By default cyclictest holds /dev/cpu_dma_latency at 0 while it runs,
// which on a VM with the haltpoll cpuidle driver keeps idle vCPUs polling
// instead of halting and cuts wake-ups by half; streamerd's rt does not. The
// "untuned" variants pass --default-system, so they compare like with like;
// the plain ones are cyclictest as people run it. The benchmark is skipped,
// with the reason, where cyclictest is not installed (`apt-get install
// rt-tests`) or cannot run.
func BenchmarkCyclictest(b *testing.B) {
	path, err := exec.LookPath("cyclictest")
	if err != nil {
		b.Skip("cyclictest not found (install rt-tests): ", err)
	}
	pin := ""
	if all, _ := cpu.OnlineMask(); all.Count() >= 2 && all.Has(1) {
		pin = "1" // where BenchmarkWakeLatency pins its thread
	}
	for _, hz := range []int{1000, 10000} {
		for _, prio := range []int{0, 80} {
			for _, untuned := range []bool{false, true} {
				name := fmt.Sprintf("%dHz", hz)
				if prio > 0 {
					name += "/fifo"
				}
				if untuned {
					name += "/untuned"
				}
				b.Run(name, func(b *testing.B) { benchCyclictest(b, path, hz, prio, pin, untuned) })
			}
		}
	}
}

func benchCyclictest(b *testing.B, path string, hz, prio int, pin string, untuned bool) {
	b.ReportAllocs()
	res, err := runCyclictest(path, b.TempDir(), b.N, 1000000/hz, prio, pin, untuned)
	if err != nil {
		b.Skip(err)
	}
	b.ReportMetric(res.Min, "min-wake-µs")
	b.ReportMetric(res.Avg, "avg-wake-µs")
	b.ReportMetric(res.percentile(50), "p50-wake-µs")
	b.ReportMetric(res.percentile(99), "p99-wake-µs")
	b.ReportMetric(res.Max, "max-wake-µs")
}

// cyclictestHistMax is the histogram range in µs (-h): latencies beyond it
// count as overflows and still set max.
const cyclictestHistMax = 100000

// cyclicResult is one thread of cyclictest's --json output.
type cyclicResult struct {
	Histogram map[string]uint64 `json:"histogram"`
	Cycles    uint64            `json:"cycles"`
	Min       float64           `json:"min"`
	Max       float64           `json:"max"`
	Avg       float64           `json:"avg"`
}

// percentile returns the p-th percentile (0..100) in µs from the
// histogram, with the same index rule as rt's benchmark (sorted sample
// len*p/100). Samples past the histogram (overflows) sit at Max.
func (r *cyclicResult) percentile(p float64) float64 {
	type bucket struct{ us, n uint64 }
	var hs []bucket
	var total uint64
	for k, n := range r.Histogram {
		us, err := strconv.ParseUint(k, 10, 64)
		if err != nil {
			continue
		}
		hs = append(hs, bucket{us, n})
		total += n
	}
	if r.Cycles > total { // overflows
		hs = append(hs, bucket{uint64(r.Max), r.Cycles - total})
		total = r.Cycles
	}
	if total == 0 {
		return 0
	}
	slices.SortFunc(hs, func(a, b bucket) int { return int(a.us) - int(b.us) })
	idx := uint64(float64(total) * p / 100)
	if idx >= total {
		idx = total - 1
	}
	var seen uint64
	for _, h := range hs {
		seen += h.n
		if seen > idx {
			return float64(h.us)
		}
	}
	return float64(hs[len(hs)-1].us)
}

// runCyclictest runs one cyclictest thread for loops cycles of intervalUs
// at SCHED_FIFO prio (0: SCHED_OTHER), pinned to pin if not empty, with
// --default-system if untuned, and parses its --json file.
func runCyclictest(path, dir string, loops, intervalUs, prio int, pin string, untuned bool) (*cyclicResult, error) {
	out := filepath.Join(dir, "cyclictest.json")
	args := []string{"-q", "-m", "-t", "1",
		"-l", strconv.Itoa(loops), "-i", strconv.Itoa(intervalUs),
		"-h", strconv.Itoa(cyclictestHistMax), "--json=" + out}
	if prio > 0 {
		args = append(args, "-p", strconv.Itoa(prio), "--policy=fifo")
	} else {
		args = append(args, "-p", "0", "--policy=other")
	}
	if pin != "" {
		args = append(args, "-a", pin)
	}
	if untuned {
		args = append(args, "--default-system")
	}
	cmd := exec.Command(path, args...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("cyclictest %v: %v: %.300s", args, err, lastLines(msg))
	}
	return parseCyclictestJSON(out)
}

// parseCyclictestJSON reads thread 0 of a cyclictest --json file.
func parseCyclictestJSON(file string) (*cyclicResult, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Thread map[string]cyclicResult `json:"thread"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("cyclictest json: %w", err)
	}
	r, ok := doc.Thread["0"]
	if !ok {
		return nil, errors.New("cyclictest json: no thread 0")
	}
	return &r, nil
}

func lastLines(b []byte) string {
	if len(b) > 300 {
		b = b[len(b)-300:]
	}
	return string(b)
}
