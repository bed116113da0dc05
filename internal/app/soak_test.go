package app

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/testenv"
)

// maxRuntimeMallocs bounds the allocations the Go runtime may make on its
// own during a soak, whatever its length, besides its thread starts: it
// grows a P's timer heap on demand, and the like. The runtime also starts
// another OS thread when the ones it has are blocked in system calls,
// which a loaded machine makes more often, and each start allocates
// (about 7 times): mallocsPerThread bounds that per thread the run
// started. One allocation per cycle would make 300 000 in the 30 s soak.
const (
	maxRuntimeMallocs = 32
	mallocsPerThread  = 10
)

// The Go runtime collects every forcedGCPeriod even when nothing
// allocates (once any collection has run in the process; GCPolicy "off"
// stops it), and after each such collection it allocates a little of its
// own again: the channel waiters and P structures the collection freed, a
// thread now and then. mallocsPerForcedGC bounds that per collection; ten
// times what was seen (8 per collection over 10 minutes on a loaded
// machine), and still thousands of times less than one allocation per
// cycle would make.
const (
	forcedGCPeriod     = 2 * time.Minute
	mallocsPerForcedGC = 80
)

var (
	soakDuration = flag.Duration("soak", 30*time.Second, "how long TestSoak runs (make soak: 10m)")
	soakConfig   = flag.String("soak.config", "", "an example configuration of configs/ (app.toml, burst.toml), or the path of a file with a UDPStreamer \"Streamer\" fed by thread \"RT1\", for TestSoak to run instead of its 10 kHz testdata/soak.toml; then no cycle may be dropped at the hand-off")
	soakLoad     = flag.Int("soak.load", 0, "how many CPU-bound processes (sh -c 'while :; do :; done') TestSoak runs beside the application")
)

// TestSoak runs the whole application at 10 kHz with a client connected for
// -soak (30 s by default, 10 minutes in make soak) and checks: no allocation
// and no GC cycle after warm-up, 0 lost updates, a stable RSS, and metrics
// that add up (RT cycles = Synchronise calls = skipped + sent + ...).
//
// With -soak.config it runs an example configuration as shipped instead
// (its ports moved to free ones), and then also checks that no cycle was
// dropped at the hand-off (cycles_skipped_total = 0): the budget of the
// automatic hand-off ring. -soak.load starts that many CPU-bound processes
// beside it for the run (make soak-load).
func TestSoak(t *testing.T) {
	testenv.SkipIfRace(t)
	if testing.Short() {
		t.Skip("soak skipped in -short")
	}
	port := testenv.FreeUDPPort(t)
	name, text := "soak.toml", strings.NewReplacer("%PORT%", strconv.Itoa(port), "%CPU%", cpuOr(1), "%NETCPU%", cpuOr(0)).Replace(readTestdata(t, "soak.toml"))
	if *soakConfig != "" {
		data, err := configs.FS.ReadFile(*soakConfig)
		if strings.ContainsRune(*soakConfig, '/') { // a file of one's own
			data, err = os.ReadFile(*soakConfig)
		}
		if err != nil {
			t.Fatal(err)
		}
		name, text = *soakConfig, strings.ReplaceAll(testenv.FreeHTTP(string(data)), "Port = 44500", "Port = "+strconv.Itoa(port))
	}
	f, err := config.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for range *soakLoad {
		cpuLoad(t)
	}
	ms := metrics.NewSet()
	a, err := Build(f, ms, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.Dial("127.0.0.1:"+strconv.Itoa(port), client.Options{LocalAddr: "127.0.0.1:0", ReadBuffer: 16 << 20, Silence: -1}) // the read deadline below bounds each wait
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			a.Stop()
		}
	}()
	if _, err := cl.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The client reads in its own goroutine, allocation-free.
	var received atomic.Uint64
	readerDone := make(chan error, 1)
	go func() {
		var u client.Update
		for {
			// A generous deadline: a loaded CI machine can stall the process for
			// seconds; a stall is not a lost update, and losses are counted below.
			cl.SetReadDeadline(time.Now().Add(15 * time.Second))
			if err := cl.Next(&u); err != nil {
				readerDone <- err
				return
			}
			received.Add(1)
		}
	}()

	warmup := 3 * time.Second
	time.Sleep(warmup)
	statm := openStatm(t)
	defer statm.Close()
	rss0 := statm.rss()
	var m0, m1 runtime.MemStats
	threads0 := pprof.Lookup("threadcreate").Count()
	runtime.ReadMemStats(&m0)
	rssMax := rss0
	t0 := time.Now()
	for time.Since(t0) < *soakDuration {
		time.Sleep(min(5*time.Second, *soakDuration-time.Since(t0)+time.Millisecond))
		rssMax = max(rssMax, statm.rss())
		select {
		case err := <-readerDone:
			t.Fatalf("client stopped after %d updates: %v", received.Load(), err)
		default:
		}
	}
	runtime.ReadMemStats(&m1)
	// The RT thread first, so the counts are final; then the metrics,
	// which closing the datasources unregisters; then the rest.
	if err := a.threads[0].rt.Stop(); err != nil {
		t.Fatal(err)
	}
	var prom bytes.Buffer
	ms.WritePrometheus(&prom)
	// The network thread sends what waits in the ring until the stop:
	// the final count of updates sent is the counter's after it.
	sentCounter := ms.GetOrCreateCounter(`streamerd_udpstreamer_updates_sent_total{datasource="Streamer"}`)
	// Threads that exit leave the profile: count only the net starts.
	newThreads := max(pprof.Lookup("threadcreate").Count()-threads0, 0)
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	sentFinal := sentCounter.Get()
	stopped = true

	mallocs, gcs := m1.Mallocs-m0.Mallocs, m1.NumGC-m0.NumGC
	st := cl.Stats()
	v := parseProm(prom.String())
	cycles := v[`streamerd_rt_cycles_total{thread="RT1"}`]
	sync := v[`streamerd_udpstreamer_synchronise_total{datasource="Streamer"}`]
	accounted := v[`streamerd_udpstreamer_cycles_skipped_total{datasource="Streamer"}`] +
		v[`streamerd_udpstreamer_cycles_without_client_total{datasource="Streamer"}`] +
		v[`streamerd_udpstreamer_updates_sent_total{datasource="Streamer"}`] +
		v[`streamerd_udpstreamer_send_errors_total{datasource="Streamer",kind="data"}`]
	stats := a.threads[0].rt.Stats()

	skipped := v[`streamerd_udpstreamer_cycles_skipped_total{datasource="Streamer"}`]
	hand := statusOfTest(t, a.sources[0].ds)
	t.Logf("soak %v of %s at %v a cycle beside %d CPU-bound processes (load average %s): %d RT cycles (%d overruns, %d missed periods), %d updates received, skipped at the hand-off %v (lock timeouts %v, each cycle held for the next; ring: %v cycles, peak %d), network wakeups %v, lost %d, stale %d, mallocs %d, threads started %d, GC cycles %d, RSS %d → max %d KiB",
		*soakDuration, name, a.threads[0].cfg.Period, *soakLoad, loadAverage(), stats.Cycles, stats.Overruns, stats.MissedPeriods, received.Load(), skipped, v[`streamerd_udpstreamer_lock_timeouts_total{datasource="Streamer"}`], hand["hand_off_depth"], handOffPeak(t, a.sources[0].ds.(*udpstreamer.Streamer)),
		v[`streamerd_udpstreamer_network_wakeups_total{datasource="Streamer"}`], st.Lost, st.Stale, mallocs, newThreads, gcs, rss0>>10, rssMax>>10)
	t.Logf("late cycles of RT1 by cause: %s", byCause(v, `streamerd_rt_late_cycles_total{thread="RT1",cause="`))
	t.Logf("missed periods of RT1 by cause: %s", byCause(v, `streamerd_rt_missed_periods_by_cause_total{thread="RT1",cause="`))
	if *soakConfig != "" && skipped != 0 {
		t.Errorf("%v cycles dropped at the hand-off (budget: 0)", skipped)
	}
	// Nothing of ours allocates; the Go runtime itself may, a few times
	// in a whole run and never per cycle (maxRuntimeMallocs), and after
	// its forced collections (mallocsPerForcedGC).
	// At most one collection per forcedGCPeriod, whatever the phase of
	// the first one.
	forced := uint32(*soakDuration/forcedGCPeriod) + 1
	if *soakDuration < forcedGCPeriod {
		forced = 0 // a short soak sees none: nothing allocates
	}
	// App.LateTraceDir: writing a trace allocates, and the trace kept in
	// memory is resident; such a run is for its traces.
	tracing := a.tracer != nil
	if tracing {
		t.Logf("LateTraceDir is set: allocations, collections and resident memory not checked")
	}
	if !tracing && gcs > forced {
		t.Errorf("%d GC cycles after warm-up (the runtime forces %d in %v)", gcs, forced, *soakDuration)
	}
	if limit := maxRuntimeMallocs + mallocsPerThread*uint64(newThreads) + mallocsPerForcedGC*uint64(gcs); !tracing && mallocs > limit {
		t.Errorf("%d allocations after warm-up (at most %d from the runtime are tolerated with %d threads started and %d forced collections)", mallocs, limit, newThreads, gcs)
	}
	if st.Lost != 0 || st.Stale != 0 {
		t.Errorf("client: %d lost, %d stale", st.Lost, st.Stale)
	}
	if !tracing && rssMax > rss0+16<<20 {
		t.Errorf("RSS grew from %d to %d KiB", rss0>>10, rssMax>>10)
	}
	// Publisher metrics lag by up to a second; the thread's own count is exact.
	if float64(stats.Cycles) != sync {
		t.Errorf("RT cycles %d != Synchronise calls %v", stats.Cycles, sync)
	}
	if cycles > sync {
		t.Errorf("published RT cycles %v > Synchronise calls %v", cycles, sync)
	}
	// The cycles still waiting in the hand-off ring at the stop are in no
	// counter: at most its depth, and the 32 at most kept aside by lock
	// timeouts.
	depth, _ := hand["hand_off_depth"].(float64)
	depth += 32
	if d := sync - accounted; d < 0 || d > depth {
		t.Errorf("Synchronise calls %v != skipped + without client + sent + send errors %v (+ up to %v waiting)", sync, accounted, depth)
	}
	if received.Load() == 0 || received.Load() > sentFinal {
		t.Errorf("received %d of %d sent", received.Load(), sentFinal)
	}
}

// cpuLoad runs one CPU-bound process until t ends, stopped by its PID.
func cpuLoad(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("no CPU-bound process: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

// loadAverage returns the first three fields of /proc/loadavg, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// cpuOr returns the TOML for pinning to CPU i when there are two CPUs, else 0.
func cpuOr(i int) string {
	if runtime.NumCPU() >= 2 {
		return strconv.Itoa(1 << i)
	}
	return "0"
}

// statm reads the resident set size from /proc/self/statm without
// allocating, so sampling it does not disturb the allocation count.
type statm struct {
	f   *os.File
	buf [128]byte
}

func openStatm(t *testing.T) *statm {
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	return &statm{f: f}
}

func (s *statm) Close() { s.f.Close() }

// rss returns the resident set size in bytes: the second field, in pages.
func (s *statm) rss() int64 {
	n, _ := s.f.ReadAt(s.buf[:], 0)
	b := s.buf[:n]
	i := 0
	for i < len(b) && b[i] != ' ' {
		i++
	}
	var pages int64
	for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		pages = pages*10 + int64(b[i]-'0')
	}
	return pages * int64(os.Getpagesize())
}

// parseProm reads "name{labels} value" lines.
func parseProm(text string) map[string]float64 {
	m := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			m[line[:i]] = v
		}
	}
	return m
}

var soakProbeSignals = []datasource.Signal{{Name: "x", Type: datasource.Uint8}}

// handOffPeak returns the most cycles st's hand-off ring has held, read
// from its status report as /status reads it.
func handOffPeak(t *testing.T, st *udpstreamer.Streamer) int {
	b, err := json.Marshal(statusOf(st))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Peak int `json:"hand_off_peak"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r.Peak
}

// byCause lists the counters of metrics v whose name starts with prefix
// (up to the cause's opening quote) that are above 0, as "cause n, …".
func byCause(v map[string]float64, prefix string) string {
	var out []string
	for k, n := range v {
		if c, ok := strings.CutPrefix(k, prefix); ok && n > 0 {
			out = append(out, fmt.Sprintf("%s %.0f", strings.TrimSuffix(c, `"}`), n))
		}
	}
	slices.Sort(out)
	return cmp.Or(strings.Join(out, ", "), "none")
}
