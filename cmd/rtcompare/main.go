// Command rtcompare runs streamerd's RT thread and cyclictest side by side on one CPU, under the same policy, and prints both wake-up distributions, their ratios, the hypervisor steal of the run and the causes of streamerd's late cycles.
//
// Usage (make rtcompare runs it for RTCOMPARE_TIME, 60 s by default):
//
//	go run ./cmd/rtcompare [-d 60s] [-cpu 1] [-prio 80] [-hz 1000]
//
// Both threads are pinned to -cpu and run SCHED_FIFO at -prio (0: normal
// scheduling for both), at -hz, for -d. streamerd's is an rt.Thread with
// one empty step and the Default sleep (clock_nanosleep to an absolute
// deadline, as cyclictest sleeps), its memory locked as cyclictest's -m
// locks its own; cyclictest runs with --default-system, so it leaves the
// CPUs' idle states alone as streamerd does. For each it prints the
// wake-up lateness (µs, truncated as cyclictest truncates) at p50 and p99
// and its maximum, and the seconds of the run in which a wake-up came
// more than 1 ms late (cyclictest's from its --spike report, stamped on
// CLOCK_MONOTONIC like streamerd's), then streamerd ÷ cyclictest for
// each. Then the steal /proc/stat counted on the CPU during the run, the
// causes the late-cycle monitor (internal/forensics) found for
// streamerd's late cycles and how many of each cyclictest was late for
// too (a spike of its while streamerd was held, 2 ms either side: the
// machine's doing, not streamerd's), the worst of them, and the budgets
// of BENCHMARKS.md.
//
// It says so and exits with status 2 when it cannot run: no cyclictest
// (Debian: apt-get install rt-tests), SCHED_FIFO refused (root or
// CAP_SYS_NICE needed; -prio 0 compares under normal scheduling), a CPU
// this process may not use, a system other than Linux.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// maxUs is the range of the latency histograms, in µs; later wake-ups
// count at their exact value in the maximum and the seconds past 1 ms.
const maxUs = 100_000

func main() {
	d := flag.Duration("d", 60*time.Second, "how long both run")
	cpuN := flag.Int("cpu", -1, "the CPU both are pinned to (default: the last one)")
	prio := flag.Int("prio", 80, "SCHED_FIFO priority of both; 0: normal scheduling")
	hz := flag.Int("hz", 1000, "cycles per second")
	path := flag.String("cyclictest", "", "the cyclictest to run (default: from PATH)")
	lock := flag.Bool("lock", true, "lock streamerd's memory (mlockall), as cyclictest -m locks its own")
	flag.Parse()
	if err := run(os.Stdout, options{d: *d, cpu: *cpuN, prio: *prio, hz: *hz, path: *path, lock: *lock}); err != nil {
		fmt.Fprintln(os.Stderr, "rtcompare: cannot run:", err)
		os.Exit(2)
	}
}

// dist is a distribution of wake-up latencies in µs.
type dist struct {
	hist    [maxUs + 1]uint64
	n       uint64
	max     int64
	lateSec map[int64]bool // seconds of the run with a wake-up > 1 ms late
}

func newDist() *dist { return &dist{lateSec: map[int64]bool{}} }

// add records a wake-up latency of us µs at offset at into the run.
func (h *dist) add(us int64, at time.Duration) {
	h.n++
	h.max = max(h.max, us)
	h.hist[min(max(us, 0), maxUs)]++
	if us > 1000 {
		h.lateSec[int64(at/time.Second)] = true
	}
}

// percentile is the p-th percentile (0..100), the sorted sample at index
// n·p/100, as bench's cyclictest benchmark computes it.
func (h *dist) percentile(p float64) int64 {
	if h.n == 0 {
		return 0
	}
	idx := min(uint64(float64(h.n)*p/100), h.n-1)
	var seen uint64
	for us, c := range h.hist {
		if seen += c; seen > idx {
			if us == maxUs {
				return h.max
			}
			return int64(us)
		}
	}
	return h.max
}

// options are the command's flags.
type options struct {
	d             time.Duration
	cpu, prio, hz int
	path          string
	lock          bool
}

func run(out io.Writer, o options) error {
	d, cpuN, prio, hz, path := o.d, o.cpu, o.prio, o.hz, o.path
	if runtime.GOOS != "linux" {
		return fmt.Errorf("needs Linux (pinning, SCHED_FIFO, /proc), this is %s", runtime.GOOS)
	}
	if path == "" {
		p, err := exec.LookPath("cyclictest")
		if err != nil {
			return errors.New("cyclictest not found (Debian: apt-get install rt-tests)")
		}
		path = p
	}
	if hz <= 0 || hz > 100_000 || d < time.Second {
		return fmt.Errorf("-hz %d, -d %v: want 1..100000 Hz and at least 1 s", hz, d)
	}
	online, err := cpu.OnlineMask()
	if err != nil {
		return err
	}
	if cpuN < 0 {
		for i := range 64 {
			if online.Has(i) {
				cpuN = i
			}
		}
	}
	if !online.Has(cpuN) {
		return fmt.Errorf("CPU %d is not one this process may use (%v)", cpuN, online)
	}
	period := time.Second / time.Duration(hz)
	d = d.Round(time.Second)

	// streamerd's thread, memory locked as cyclictest -m locks its own.
	cfg := rt.Config{Name: "rt", Frequency: float64(hz), CPUMask: cpu.Of(cpuN), Priority: prio, LockMemory: o.lock}
	th, err := cycles.New(cfg, []rt.Step{{Name: "nop", Exec: nop{}}}, nil, 0)
	if err != nil {
		return err
	}
	locked := "both memory-locked"
	if !o.lock {
		locked = "streamerd's memory not locked (-lock=false)"
	}
	if err := th.Start(context.Background()); err != nil {
		if prio > 0 && strings.Contains(err.Error(), "SCHED_FIFO") {
			return fmt.Errorf("%v\n  run as root (or with CAP_SYS_NICE), or pass -prio 0 to compare under normal scheduling", err)
		}
		// mlockall refused (RLIMIT_MEMLOCK): go on unlocked, and say so.
		cfg.LockMemory = false
		if th, err = cycles.New(cfg, []rt.Step{{Name: "nop", Exec: nop{}}}, nil, 0); err == nil {
			err = th.Start(context.Background())
		}
		if err != nil {
			return err
		}
		locked = "streamerd's memory not locked (mlockall refused)"
	}
	t0 := cpu.MonotonicNanos()
	var events []forensics.Event
	mon := forensics.New(forensics.Config{OnEvent: func(ev *forensics.Event) { events = append(events, *ev) }})
	mon.WatchThread(th, []string{"nop"}, prio > 0)
	mon.Start()
	load0 := loadAvg()
	steal0, stealOK := forensics.ReadSteal()
	stealSec := make(chan []int64, 1)
	go stealPerSecond(cpuN, d, stealSec)

	mine := newDist()
	drained := make(chan struct{})
	stopDrain := make(chan struct{})
	go drainTimings(th, period, mine, stopDrain, drained)
	stopRT := time.AfterFunc(d, func() { th.Stop() })

	dir, err := os.MkdirTemp("", "rtcompare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := []string{"-q", "-t", "1", "-a", strconv.Itoa(cpuN), "-i", strconv.Itoa(int(period / time.Microsecond)),
		"-D", strconv.Itoa(int(d / time.Second)), "-m", "--default-system",
		"-h", strconv.Itoa(maxUs), "--json=" + filepath.Join(dir, "cyclictest.json"),
		"--spike=" + strconv.Itoa(int(th.LateThreshold()/time.Microsecond)), "--spike-nodes=1000000"}
	if prio > 0 {
		args = append(args, "-p", strconv.Itoa(prio), "--policy=fifo")
	} else {
		args = append(args, "-p", "0", "--policy=other")
	}
	theirs, spikes, ctErr := runCyclictest(path, args, filepath.Join(dir, "cyclictest.json"), t0)
	stopRT.Stop() // cyclictest ended first (it failed), or already fired
	_ = th.Stop() // stopped here, or waits for the timer's Stop under way
	close(stopDrain)
	<-drained
	mon.Stop()
	steal1, _ := forensics.ReadSteal()
	load1 := loadAvg()
	if ctErr != nil {
		return ctErr
	}
	report(out, reportArgs{
		d: d, hz: hz, cpuN: cpuN, prio: prio, locked: locked, load0: load0, load1: load1, args: args,
		mine: mine, theirs: theirs, spikes: spikes, events: events, counts: mon.Counts("rt"), threshold: th.LateThreshold(),
		steal0: steal0, steal1: steal1, stealOK: stealOK, stealSec: <-stealSec, t0: t0,
	})
	return nil
}

type nop struct{}

func (nop) Execute() error { return nil }

// drainTimings moves the thread's wake-up lateness into h every 100 ms
// until stop, then once more; cycle i is placed i periods into the run.
func drainTimings(th *cycles.Thread, period time.Duration, h *dist, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	w := th.TimingWidth()
	rows := make([]int64, 4096*w)
	var cycle int64
	drain := func() {
		for {
			n, lost := th.DrainTimings(rows)
			cycle += int64(lost)
			for i := range n {
				h.add(rows[i*w+cycles.TimingLateness]/1000, time.Duration(cycle)*period)
				cycle++
			}
			if n < len(rows)/w {
				return
			}
		}
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			drain()
			return
		case <-tick.C:
			drain()
		}
	}
}

// spike is a wake-up cyclictest reported past its --spike threshold.
type spike struct {
	at int64 // ns since the start of the run (CLOCK_MONOTONIC)
	us int64
}

// runCyclictest runs cyclictest with args and reads its distribution from
// the --json file (its -h histogram, counts and maximum) and its spikes
// ("T: 0 Spike: µs: TS: µs", CLOCK_MONOTONIC) from its output, placed
// against t0 (MonotonicNanos at the start of the run).
func runCyclictest(path string, args []string, jsonFile string, t0 int64) (*dist, []spike, error) {
	cmd := exec.Command(path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("cyclictest: %w", err)
	}
	var spikes []spike
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		// T: 0 Spike:     202: TS:   7141147486
		f := strings.Fields(strings.NewReplacer(":", " ").Replace(sc.Text()))
		if len(f) != 6 || f[0] != "T" || f[2] != "Spike" || f[4] != "TS" {
			continue
		}
		us, err1 := strconv.ParseInt(f[3], 10, 64)
		ts, err2 := strconv.ParseInt(f[5], 10, 64)
		if err1 == nil && err2 == nil {
			spikes = append(spikes, spike{at: ts*1000 - t0, us: us})
		}
	}
	scanErr := sc.Err()
	if scanErr != nil {
		// A line beyond the scanner's buffer: drain the rest, so that
		// cyclictest never blocks on a full pipe and Wait returns.
		io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil {
		return nil, nil, fmt.Errorf("cyclictest %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	if scanErr != nil {
		return nil, nil, fmt.Errorf("cyclictest's output: %w", scanErr)
	}
	raw, err := os.ReadFile(jsonFile)
	if err != nil {
		return nil, nil, fmt.Errorf("cyclictest wrote no --json file: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var doc struct {
		Thread map[string]struct {
			Histogram map[string]uint64 `json:"histogram"`
			Cycles    uint64            `json:"cycles"`
			Max       int64             `json:"max"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, nil, fmt.Errorf("cyclictest --json: %w", err)
	}
	r, ok := doc.Thread["0"]
	if !ok || r.Cycles == 0 {
		return nil, nil, fmt.Errorf("cyclictest --json: no cycles of thread 0: %.300s", raw)
	}
	h := newDist()
	var inHist uint64
	for k, n := range r.Histogram {
		us, err := strconv.Atoi(k)
		if err != nil || us < 0 {
			continue
		}
		h.hist[min(us, maxUs)] += n
		inHist += n
	}
	if r.Cycles > inHist { // past the histogram's range
		h.hist[maxUs] += r.Cycles - inHist
	}
	h.n, h.max = r.Cycles, r.Max
	for _, sp := range spikes {
		if sp.us > 1000 {
			h.lateSec[sp.at/int64(time.Second)] = true
		}
	}
	return h, spikes, nil
}

// stealPerSecond reads the steal of CPU c every second for d and sends
// the steal of each second (ns).
func stealPerSecond(c int, d time.Duration, out chan<- []int64) {
	var per []int64
	prev, ok := forensics.ReadSteal()
	for t := time.Second; t <= d && ok && c < len(prev); t += time.Second {
		time.Sleep(time.Second)
		s, ok2 := forensics.ReadSteal()
		if !ok2 || c >= len(s) {
			break
		}
		per = append(per, s[c]-prev[c])
		prev = s
	}
	out <- per
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

type reportArgs struct {
	d                    time.Duration
	hz, cpuN, prio       int
	locked, load0, load1 string
	args                 []string
	mine, theirs         *dist
	spikes               []spike
	events               []forensics.Event
	counts               [forensics.NumCauses]uint64
	threshold            time.Duration
	steal0, steal1       []int64
	stealOK              bool
	stealSec             []int64
	t0                   int64 // MonotonicNanos at the start of the run
}

// report prints the run: both distributions and their ratios, the steal,
// the causes of streamerd's late cycles, and the budgets.
func report(out io.Writer, r reportArgs) {
	policy := "normal scheduling"
	if r.prio > 0 {
		policy = fmt.Sprintf("SCHED_FIFO %d", r.prio)
	}
	fmt.Fprintf(out, "rtcompare: %v at %d Hz on CPU %d, %s, %s; load average %s at the start, %s at the end\n",
		r.d, r.hz, r.cpuN, policy, r.locked, r.load0, r.load1)
	fmt.Fprintf(out, "cyclictest %s\n\n", strings.Join(r.args, " "))
	fmt.Fprintf(out, "%-22s %8s %8s %8s %8s %14s\n", "wake-up lateness", "cycles", "p50 µs", "p99 µs", "max µs", "seconds >1 ms")
	for _, row := range []struct {
		name string
		h    *dist
	}{{"streamerd (rt.Thread)", r.mine}, {"cyclictest", r.theirs}} {
		fmt.Fprintf(out, "%-22s %8d %8d %8d %8d %14d\n", row.name, row.h.n, row.h.percentile(50), row.h.percentile(99), row.h.max, len(row.h.lateSec))
	}
	ratio := func(a, b int64) string {
		switch {
		case b != 0:
			return fmt.Sprintf("%.2f", float64(a)/float64(b))
		case a == 0:
			return "1.00"
		}
		return "inf"
	}
	p99m, p99t := r.mine.percentile(99), r.theirs.percentile(99)
	fmt.Fprintf(out, "%-22s %8s %8s %8s %8s %14s\n\n", "streamerd/cyclictest", "",
		ratio(r.mine.percentile(50), r.theirs.percentile(50)), ratio(p99m, p99t), ratio(r.mine.max, r.theirs.max),
		ratio(int64(len(r.mine.lateSec)), int64(len(r.theirs.lateSec))))

	if c := r.cpuN; r.stealOK && c < len(r.steal0) && c < len(r.steal1) {
		s := time.Duration(r.steal1[c] - r.steal0[c])
		withSteal, worst := 0, int64(0)
		for _, v := range r.stealSec {
			if v > 0 {
				withSteal++
			}
			worst = max(worst, v)
		}
		fmt.Fprintf(out, "steal on CPU %d during the run (/proc/stat, 10 ms ticks): %v (%.2f %%), in %d of %d seconds, at most %v in one second\n",
			c, s, 100*float64(s)/float64(r.d), withSteal, len(r.stealSec), time.Duration(worst))
	} else {
		fmt.Fprintln(out, "steal: /proc/stat unreadable")
	}

	var total uint64
	var parts []string
	for c := range forensics.NumCauses {
		total += r.counts[c]
		if r.counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, r.counts[c]))
		}
	}
	unknown := 0.0
	if total > 0 {
		unknown = float64(r.counts[forensics.Unknown]) / float64(total)
	}
	fmt.Fprintf(out, "streamerd's late cycles (woke more than %v late, or overran): %d", r.threshold, total)
	if total > 0 {
		fmt.Fprintf(out, ": %s; unknown %.1f %%", strings.Join(parts, ", "), 100*unknown)
	}
	fmt.Fprintln(out)
	// Which of them cyclictest, on the same CPU, also woke late for
	// (a spike within 2 ms): the machine's, not streamerd's.
	shared := map[forensics.Cause][2]int{}
	for _, ev := range r.events {
		n := shared[ev.Cause]
		n[1]++
		if worstSpike(r.spikes, ev, r.t0).us > 0 {
			n[0]++
		}
		shared[ev.Cause] = n
	}
	var also []string
	var both int
	for c := range forensics.NumCauses {
		if n, ok := shared[c]; ok {
			also = append(also, fmt.Sprintf("%s %d of %d", c, n[0], n[1]))
			both += n[0]
		}
	}
	if len(also) > 0 {
		fmt.Fprintf(out, "  of which cyclictest was late too (a spike over %v while it was held, 2 ms either side): %s\n", r.threshold, strings.Join(also, ", "))
		fmt.Fprintf(out, "  late with cyclictest on time: %d of %d\n", len(r.events)-both, len(r.events))
	}
	evs := slices.Clone(r.events)
	slices.SortFunc(evs, func(a, b forensics.Event) int { return int(b.Late - a.Late) })
	for _, ev := range evs[:min(len(evs), 8)] {
		why := ev.Explain()
		if c := ev.Cause.String(); !strings.HasPrefix(why, c) {
			why = c + ": " + why // the cause named once: "preempted: waited 3.2 ms for CPU 1"
		}
		fmt.Fprintf(out, "  %s late %v: %s\n", ev.Time.Format("15:04:05.000"), ev.Late.Round(time.Microsecond), why)
	}
	holds := func(ok bool) string {
		if ok {
			return "holds"
		}
		return "FAILS"
	}
	fmt.Fprintf(out, "\nbudget: max ≤ cyclictest's max: %s; p99 ≤ 1.2× cyclictest's: %s; unknown < 10 %% of late cycles: %s\n",
		holds(r.mine.max <= r.theirs.max), holds(float64(p99m) <= 1.2*float64(p99t)), holds(unknown < 0.10))
	if len(evs) > 0 && r.mine.max > r.theirs.max {
		// Past cyclictest's maximum: say whether cyclictest was held by
		// the same stall, as when the hypervisor held the CPU from both.
		worst := evs[0]
		if sp := worstSpike(r.spikes, worst, r.t0); sp.us > 0 {
			// Both woke when the stall ended; their latenesses differ by
			// where each loop's deadline fell in it.
			theirs := time.Duration(sp.us) * time.Microsecond
			after := time.Duration(worst.At + int64(worst.Late) - r.t0 - sp.at).Round(time.Microsecond)
			when := fmt.Sprintf("%v after", after)
			if after < 0 {
				when = fmt.Sprintf("%v before", -after)
			}
			fmt.Fprintf(out, "  streamerd's worst wake-up (late %v) was one stall with cyclictest's (late %v): it woke %s cyclictest; the other %v is where the two deadlines fell in the stall\n",
				worst.Late.Round(time.Microsecond), theirs, when, (worst.Late - theirs - after).Round(time.Microsecond))
		} else {
			fmt.Fprintf(out, "  streamerd's worst wake-up (late %v) came with no spike of cyclictest's while it was held: streamerd's own\n", worst.Late.Round(time.Microsecond))
		}
	}
}

// worstSpike returns cyclictest's worst spike while streamerd's late cycle
// ev lasted, from its deadline to its wake-up, 2 ms either side; its us is
// 0 when there is none. Spikes are in time order, stamped with cyclictest's
// wake-up: one stall of the CPU stamps both late wake-ups near its end,
// however long it was.
func worstSpike(spikes []spike, ev forensics.Event, t0 int64) spike {
	from, to := ev.At-t0-2e6, ev.At-t0+int64(ev.Late)+2e6
	i, _ := slices.BinarySearchFunc(spikes, from, func(s spike, t int64) int { return cmp.Compare(s.at, t) })
	var worst spike
	for ; i < len(spikes) && spikes[i].at <= to; i++ {
		if spikes[i].us > worst.us {
			worst = spikes[i]
		}
	}
	return worst
}
