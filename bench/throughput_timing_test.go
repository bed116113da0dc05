package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// sustainCase is one configuration whose sustained rate is searched.
type sustainCase struct {
	name string
	cfg  udpstreamer.Config
}

// sustainCases are the 1000-sample float32 burst example of docs/udpstreamer.md
// (4012 B of payload, 3 fragments of at most 1400 B) and a 64 KiB update,
// once fragmented at 1400 B (48 fragments) and once at the protocol's
// largest datagram (65507 B, 2 fragments), with a hand-off of one slot
// (HandOffDepth 1, the protocol's latest value wins); then
// the burst and the 64 KiB update in 1400 B fragments with HandOffDepth 32
// ("depth32"), and the burst with a ring of 1024 cycles ("depth1024", 22 ms
// at 45 000 updates/s), deeper than the longest stall of the machine.
func sustainCases() []sustainCase {
	burst := udpstreamer.Config{Name: "Burst", MaxPayloadSize: 1400, Signals: []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 1000, Unit: "V",
			TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 1e6},
	}}
	big := func(name string, mps int) udpstreamer.Config {
		return udpstreamer.Config{Name: name, MaxPayloadSize: mps, Signals: []datasource.Signal{
			{Name: "N", Type: datasource.Uint32},
			{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 65536 - 4},
		}}
	}
	deep := func(c udpstreamer.Config, depth int) udpstreamer.Config {
		c.HandOffDepth = depth
		return c
	}
	return []sustainCase{
		{"Burst", deep(burst, 1)},
		{"64KiB-1400B", deep(big("Big1400", 1400), 1)},
		{"64KiB-65507B", deep(big("Big65507", 65507), 1)},
		{"Burst/depth32", deep(burst, 32)},
		{"64KiB-1400B/depth32", deep(big("Big1400", 1400), 32)},
		{"Burst/depth1024", deep(burst, 1024)},
	}
}

// BenchmarkSustained searches the largest update rate a UDPStreamer holds
// with a client on loopback receiving every update. The pacer is an
// rt.Thread (Default sleep) waking at the rate, or at pacerMaxWake when
// the rate is higher, whose one step publishes every update that has come
// due since the step began (pacedSync): a counter into signal memory, then
// the broker's Synchronise. So a step of d at rate r offers r·d updates,
// whatever the pacer's wake-up latency, one per wake-up when it wakes on
// time and back to back when it wakes late. A client built from the wire
// package's Reassembler and SequenceGate reads with a large SO_RCVBUF. A
// step is held when the pacer offered the rate and every update it
// published reached the client whole (nothing replaced or overwritten by
// the hand-off, nothing dropped by the kernel). The rate doubles from
// 1000/s until a step loses, is then bisected, and, when
// STREAMERD_BENCH_SUSTAIN is longer than the 200 ms search step, the best
// rate is confirmed for that long (halving the rate per failure, four
// tries: a 10 s run at zero loss is a tail-latency test, one stall longer
// than the hand-off covers loses a cycle).
// With STREAMERD_BENCH_RATE set, each iteration offers that rate for
// STREAMERD_BENCH_SUSTAIN instead of searching.
//
// Reported for the confirmed step: updates/s, MB/s (wire bytes, headers
// included, as wire-MB/s) and datagrams/s achieved; e2e-p50/p99/max-µs,
// from each update's hrtTimestamp to its completion at the client; and
// burst-max, the most updates the pacer published on one wake-up. Then
// lost-ppm-2kHz: updates lost per million in one step of
// STREAMERD_BENCH_SUSTAIN at 2000 updates/s, a steadier view of the same
// tail. Then, as the ceiling those figures sit under, cap-updates/s and
// cap-MB/s: whole updates per second the client receives when Synchronise
// is called back to back (skips allowed) for up to 2 s.
//
// Each case runs twice. The plain variant is the UDPStreamer as its Config
// allows by default: network thread and pacer unpinned under normal
// scheduling. The "fifo" variant pins the pacer to CPU 0 at SCHED_FIFO 80
// and the network thread to CPU 1 at SCHED_FIFO 70 (udpstreamer.Config's
// CPUMask and Priority). It is skipped with one CPU or without permission.
func BenchmarkSustained(b *testing.B) {
	full := sustainDuration(b)
	short := min(full, sustainDefault)
	for _, sc := range sustainCases() {
		for _, fifo := range []bool{false, true} {
			name := sc.name
			if fifo {
				name += "/fifo"
			}
			b.Run(name, func(b *testing.B) { benchSustained(b, sc, fifo, short, full) })
		}
	}
}

func benchSustained(b *testing.B, sc sustainCase, fifo bool, short, full time.Duration) {
	h := newHarness(b, sc.cfg, fifo)
	defer h.close()
	b.ReportAllocs()
	var rate float64
	var e2e [3]int64
	var burst uint32
	iters := 0
	for b.Loop() {
		r := h.search(short, full)
		if testing.Verbose() {
			// The search trail: each step's rate and what it lost. make
			// bench (-v) keeps it in bench/raw.txt; make test's one-pass
			// smoke run has no use for it.
			b.Logf("%s", r.trail)
		}
		rate += r.best.achieved
		for i := range e2e {
			e2e[i] = max(e2e[i], r.best.e2e[i])
		}
		burst = max(burst, r.best.burst)
		iters++
	}
	rate /= float64(iters)
	b.ReportMetric(rate, "updates/s")
	b.ReportMetric(rate*float64(h.wireBytes)/1e6, "wire-MB/s")
	b.ReportMetric(rate*float64(sizes(h.s).FragmentCount()), "datagrams/s")
	b.ReportMetric(float64(burst), "burst-max")
	b.ReportMetric(float64(e2e[0])/1e3, "e2e-p50-µs")
	b.ReportMetric(float64(e2e[1])/1e3, "e2e-p99-µs")
	b.ReportMetric(float64(e2e[2])/1e3, "e2e-max-µs")
	fixed := h.step(fixedRate, full)
	b.ReportMetric(float64(fixed.lost())/float64(max(fixed.sync, 1))*1e6, "lost-ppm-2kHz")
	capRate := h.capacity(min(full, 2*time.Second))
	b.ReportMetric(capRate, "cap-updates/s")
	b.ReportMetric(capRate*float64(h.wireBytes)/1e6, "cap-MB/s")
}

// capacity calls Synchronise flat out (yielding the processor between
// calls) for d and returns the whole updates per second the client
// received: the most the network thread and the client move when every
// wake finds a fresh cycle, whatever is skipped on the way.
func (h *harness) capacity(d time.Duration) float64 {
	recv0 := h.cl.updates.Load()
	var n uint32
	t0 := time.Now()
	for time.Since(t0) < d {
		n++
		binary.LittleEndian.PutUint32(h.counter, n)
		h.s.Synchronise()
		runtime.Gosched()
	}
	h.cl.drain(recv0+uint64(n), 100*time.Millisecond)
	return float64(h.cl.updates.Load()-recv0) / time.Since(t0).Seconds()
}

// harness is a running Streamer, its connected client and the server's
// skipped-cycle counter.
type harness struct {
	tb        testing.TB
	pacer     rt.Config
	s         *udpstreamer.Streamer
	cl        *client
	skipped   *metrics.Counter
	counter   []byte
	wireBytes int
	e2e       []int64 // scratch for the client's latency samples
}

func newHarness(tb testing.TB, cfg udpstreamer.Config, fifo bool) *harness {
	tb.Helper()
	cfg.Address = "127.0.0.1"
	pacer := rt.Config{Name: "pacer"}
	if fifo {
		if online, _ := cpu.OnlineMask(); !online.Has(0) || !online.Has(1) {
			tb.Skip("fifo variant needs CPUs 0 and 1")
		}
		cfg.CPUMask, cfg.Priority = cpu.Of(netCPU), netPriority
		pacer.CPUMask, pacer.Priority = cpu.Of(0), pacerPriority
	}
	ms := metrics.NewSet()
	s, err := startStreamer(tb, cfg, ms)
	if fifo && (errors.Is(err, syscall.EPERM) || errors.Is(err, cpu.ErrNotSupported)) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	h := &harness{tb: tb, pacer: pacer, s: s, counter: testenv.Must(s.GetSignalMemoryBuffer(0)),
		wireBytes: sizes(s).PayloadSize() + sizes(s).FragmentCount()*headerSize,
		// The Streamer registered this counter; GetOrCreate returns it.
		skipped: ms.GetOrCreateCounter(fmt.Sprintf(`streamerd_udpstreamer_cycles_skipped_total{datasource=%q}`, cfg.Name)),
	}
	h.cl, err = dialClient(s.LocalAddr(), 5*time.Second)
	if err != nil {
		s.Close()
		tb.Fatal(err)
	}
	return h
}

func (h *harness) close() {
	h.s.Close()
	h.cl.close()
}

// stepResult is what one paced step did.
type stepResult struct {
	offered  float64 // target rate, updates/s
	achieved float64 // Synchronise calls per second actually made
	sync     uint64  // Synchronise calls
	recv     uint64  // whole updates the client accepted
	skipped  uint64  // cycles the server's hand-off replaced
	gateLost uint64  // counters the client never saw (kernel or send drops)
	burst    uint32  // most updates the pacer published on one wake-up
	// Synchronise to whole update at the client, ns: p50, p99, max.
	e2e [3]int64
}

func (r stepResult) lost() uint64 { return r.sync - min(r.recv, r.sync) }

// held reports whether the pacer offered the rate (the slack is the
// thread's start and stop, inside the measured time) and the client
// received every update it published.
func (r stepResult) held() bool { return r.lost() == 0 && r.achieved >= 0.95*r.offered }

func (r stepResult) String() string {
	s := fmt.Sprintf("%.0f/s", r.offered)
	if r.achieved < 0.95*r.offered {
		s += fmt.Sprintf("(got %.0f)", r.achieved)
	}
	if r.burst > 1 {
		s += fmt.Sprintf(" burst %d", r.burst)
	}
	if l := r.lost(); l > 0 {
		s += fmt.Sprintf(" lost %d (skipped %d, gap %d; e2e max %dµs)", l, r.skipped, r.gateLost, r.e2e[2]/1000)
	} else {
		s += " ok"
	}
	return s
}

// pacerMaxWake is the most wake-ups per second asked of the pacer: an RT
// thread with Default sleep wakes 50-100 µs late on a VM (BenchmarkWakeLatency),
// so it cannot keep a shorter period, and a SCHED_FIFO one asked to would
// never sleep. Above this rate each wake-up publishes several updates.
const pacerMaxWake = 10000

// pacedSync is the pacer's only step: it publishes one update for every
// period of the offered rate that has come due, writing 1, 2, 3... into
// dst and running sync for each. What is due follows the pacer's Counter,
// which numbers the deadline each cycle woke for and jumps over the
// periods a late cycle skipped: perWake updates per deadline. So when the
// pacer wakes on time it publishes perWake updates per wake-up (1 up to
// pacerMaxWake), and when it wakes late the updates due meanwhile go out
// back to back on its next wake-up: the number offered is the rate times
// the time whatever the pacer's wake-up latency, as samples clocked by
// hardware would be.
type pacedSync struct {
	dst     []byte
	sync    rt.Executable
	counter *uint32 // the pacer's Counter
	perWake float64 // updates per period of the pacer
	n       uint32  // updates published
	burst   uint32  // most updates one wake-up published
}

func (g *pacedSync) Execute() error {
	due := uint32(float64(*g.counter) * g.perWake)
	g.burst = max(g.burst, due-g.n)
	for ; g.n < due; g.n++ {
		binary.LittleEndian.PutUint32(g.dst, g.n+1)
		if err := g.sync.Execute(); err != nil {
			return err
		}
	}
	return nil
}

// step paces Synchronise at rate for d and waits for the client to drain.
func (h *harness) step(rate float64, d time.Duration) stepResult {
	sync, err := broker.NewMemoryMapSynchronisedOutputBroker(h.s, nil)
	if err != nil {
		h.tb.Fatal(err)
	}
	pc := h.pacer
	pc.Frequency = min(rate, pacerMaxWake)
	count := &pacedSync{dst: h.counter, sync: sync, perWake: rate / pc.Frequency}
	th, err := rt.New(pc, nil, []rt.Step{{Name: "paced sync", Exec: count}})
	if err != nil {
		h.tb.Fatal(err)
	}
	count.counter = th.Counter()
	h.e2e = h.cl.takeE2E(h.e2e)
	recv0, lost0, skipped0 := h.cl.updates.Load(), h.cl.lost.Load(), h.skipped.Get()
	t0 := time.Now()
	if err := th.Start(context.Background()); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, cpu.ErrNotSupported) {
			h.tb.Skip(err)
		}
		h.tb.Fatal(err)
	}
	time.Sleep(d)
	if err := th.Stop(); err != nil {
		h.tb.Fatal(err)
	}
	el := time.Since(t0)
	n := count.n
	want := recv0 + uint64(n)
	h.cl.drain(want, 200*time.Millisecond)
	h.e2e = h.cl.takeE2E(h.e2e)
	return stepResult{
		burst:    count.burst,
		e2e:      [3]int64{latency.Percentile(h.e2e, 50), latency.Percentile(h.e2e, 99), latency.Percentile(h.e2e, 100)},
		offered:  rate,
		achieved: float64(n) / el.Seconds(),
		sync:     uint64(n),
		recv:     h.cl.updates.Load() - recv0,
		skipped:  h.skipped.Get() - skipped0,
		gateLost: h.cl.lost.Load() - lost0,
	}
}

// The fifo variant's placement: the pacer on CPU 0, the network thread on
// netCPU, both SCHED_FIFO, the pacer above the network thread as an RT
// thread would be.
const (
	netCPU        = 1
	pacerPriority = 80
	netPriority   = 70
)

// searchResult is the outcome of one search.
type searchResult struct {
	best  stepResult
	trail string
}

// fixedRate is the rate of the fixed step whose loss is reported in parts
// per million: steadier than the zero-loss search, which one late wake-up
// decides.
const fixedRate = 2000

const (
	searchStart    = 1000.0
	searchMax      = 1e6
	searchBisects  = 4
	confirmBackoff = 0.5
	confirmTries   = 4
)

// search finds the largest rate held with nothing lost: doubling, then
// bisecting, with steps of length short, then confirming for full.
func (h *harness) search(short, full time.Duration) searchResult {
	var res searchResult
	var trail []string
	try := func(rate float64, d time.Duration) stepResult {
		r := h.step(rate, d)
		trail = append(trail, r.String())
		return r
	}
	var good stepResult
	if rate := offeredRate(h.tb); rate > 0 {
		// One step at the rate asked for, no search.
		if r := try(rate, full); r.held() {
			good = r
		}
		return searchResult{best: good, trail: strings.Join(trail, ", ")}
	}
	lo, hi := 0.0, 0.0
	for rate := searchStart; rate <= searchMax; rate *= 2 {
		r := try(rate, short)
		if !r.held() {
			hi = rate
			break
		}
		good, lo = r, rate
	}
	if hi > 0 {
		for range searchBisects {
			mid := (lo + hi) / 2
			if r := try(mid, short); !r.held() {
				hi = mid
			} else {
				good, lo = r, mid
			}
		}
	}
	if full > short && lo > 0 {
		rate := lo
		good = stepResult{}
		for range confirmTries {
			trail = append(trail, fmt.Sprintf("confirm %v:", full))
			if r := try(rate, full); r.held() {
				good = r
				break
			}
			rate *= confirmBackoff
		}
	}
	res.best = good
	res.trail = strings.Join(trail, ", ")
	return res
}

// BenchmarkLoopback is the kernel's baseline for BenchmarkSustained: one
// goroutine sends datagrams of the given size to 127.0.0.1 in a tight
// WriteToUDPAddrPort loop, another reads them with the same kind of read
// loop and the same SO_RCVBUF as the UDPStreamer client. The sender stays at
// most a window of datagrams (a quarter of the receive buffer) ahead of the
// reader, so nothing is lost and the rate is the most the loopback path of
// this kernel and runtime moves with 0 loss. Each iteration runs for
// STREAMERD_BENCH_SUSTAIN (200 ms by default). Reported: datagrams/s,
// wire-MB/s and lost (which must be 0: it counts sequence gaps).
func BenchmarkLoopback(b *testing.B) {
	d := sustainDuration(b)
	for _, size := range []int{1400, 65507} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			tx, rx := listenLoopback(b), listenLoopback(b)
			defer tx.Close()
			bufs, _ := netthread.SetBuffers(rx, 0, rcvBufWant)
			netthread.SetBuffers(tx, 4<<20, 0)
			// The kernel charges a datagram's truesize (payload plus
			// about 1 KiB of skb, rounded up) against twice the buffer.
			window := max(1, uint64(bufs.RecvGot/(2*size+2048)))
			var recvd, gaps atomic.Uint64
			done := make(chan struct{})
			go func() {
				defer close(done)
				buf := make([]byte, 65536)
				var next uint64
				for {
					n, err := rx.Read(buf)
					if err != nil {
						return
					}
					if n < 8 {
						continue
					}
					seq := binary.LittleEndian.Uint64(buf)
					if seq > next {
						gaps.Add(seq - next)
					}
					next = seq + 1
					recvd.Add(1)
				}
			}()
			msg := make([]byte, size)
			dst := rx.LocalAddr().(*net.UDPAddr).AddrPort()
			var seq uint64
			var total time.Duration
			var got uint64
			b.ReportAllocs()
			for b.Loop() {
				start := recvd.Load()
				t0 := time.Now()
				for end := t0.Add(d); ; {
					for seq-recvd.Load()-gaps.Load() >= window {
						runtime.Gosched()
					}
					binary.LittleEndian.PutUint64(msg, seq)
					if _, err := tx.WriteToUDPAddrPort(msg, dst); err != nil {
						b.Fatal(err)
					}
					seq++
					if seq&63 == 0 && time.Now().After(end) {
						break
					}
				}
				// Wait for the last datagram, or give up after 1 s (a
				// loss shows in gaps, or as a datagram never received).
				for w := time.Now(); recvd.Load()+gaps.Load() < seq && time.Since(w) < time.Second; {
					runtime.Gosched()
				}
				total += time.Since(t0)
				got += recvd.Load() - start
			}
			rx.Close()
			<-done
			rate := float64(got) / total.Seconds()
			b.ReportMetric(rate, "datagrams/s")
			b.ReportMetric(rate*float64(size)/1e6, "wire-MB/s")
			b.ReportMetric(float64(seq-recvd.Load()), "lost")
		})
	}
}

// sizes returns the DATA payload's size and fragment count of s (its
// Internals).
func sizes(s *udpstreamer.Streamer) interface {
	PayloadSize() int
	FragmentCount() int
} {
	return s.Internals().(interface {
		PayloadSize() int
		FragmentCount() int
	})
}

// headerSize is the size of the header of every UDPStreamer datagram
// (docs/udpstreamer.md).
const headerSize = 17
