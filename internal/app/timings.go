package app

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/streamerd/streamerd/internal/cycles"
)

// Cycle timings, MARTe2's TimingDataSource made readable: the RT threads
// and the UDPStreamer network threads record every cycle's timings in
// lock-free rings (cycles.Thread.DrainTimings, DrainSendLatencies); a
// collector goroutine drains them every timingsDrain into Prometheus
// histograms and, per timingsInterval, into the p50, p99 and maximum shown
// in /status. Nothing here runs on an RT thread.
const (
	timingsDrain    = 100 * time.Millisecond
	timingsInterval = publishInterval
	// reservoirSize bounds the samples a series keeps per interval for its
	// percentiles; beyond it they are a uniform sample of the interval
	// (the maximum stays exact).
	reservoirSize = 16384
)

// sendLatencies is a datasource whose network thread records the time
// from Synchronise to each update's send (UDPStreamer).
type sendLatencies interface {
	DrainSendLatencies(dst []int64) (n int, lost uint64)
}

// Percentiles are the p50, p99 and maximum of one series over the last
// interval, in microseconds, and its sample count.
type Percentiles struct {
	N   uint64  `json:"n"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// TimingsStatus is the timings section of /status: the last completed
// interval of every series.
type TimingsStatus struct {
	IntervalS   float64                  `json:"interval_s"`
	Threads     []ThreadTimingsStatus    `json:"threads"`
	DataSources []DataSourceTimingStatus `json:"datasources,omitempty"`
}

// ThreadTimingsStatus is one RT thread's timings, in microseconds.
type ThreadTimingsStatus struct {
	Thread         string             `json:"thread"`
	CycleTime      Percentiles        `json:"cycle_time_us"`
	WakeupLateness Percentiles        `json:"wakeup_lateness_us"`
	Steps          []StepTimingStatus `json:"steps"`
	SamplesLost    uint64             `json:"samples_lost,omitempty"`
}

// StepTimingStatus is one GAM's or broker's execution time, in
// microseconds.
type StepTimingStatus struct {
	Step string      `json:"step"`
	Exec Percentiles `json:"exec_us"`
}

// DataSourceTimingStatus is one UDPStreamer's time from Synchronise to the
// return of the send of each update, in microseconds.
type DataSourceTimingStatus struct {
	DataSource        string      `json:"datasource"`
	SynchroniseToSent Percentiles `json:"synchronise_to_sent_us"`
	SamplesLost       uint64      `json:"samples_lost,omitempty"`
}

// series is one timing: its histogram and this interval's samples.
type series struct {
	hist *metrics.PrometheusHistogram
	res  reservoir
	last Percentiles // the last completed interval; collector's mu
}

func newSeries(ms *metrics.Set, name string, bounds []float64) series {
	return series{hist: ms.NewPrometheusHistogramExt(name, bounds), res: reservoir{buf: make([]int64, 0, reservoirSize), rng: 0x9E3779B97F4A7C15}}
}

// add records one sample in nanoseconds.
func (s *series) add(ns int64) {
	ns = max(ns, 0)
	s.hist.Update(float64(ns) / 1e9)
	s.res.add(ns)
}

// reservoir keeps a uniform sample of at most cap(buf) of an interval's
// samples (Vitter's algorithm R), their count and their exact maximum.
type reservoir struct {
	buf  []int64
	seen uint64
	max  int64
	rng  uint64
}

func (r *reservoir) add(v int64) {
	r.seen++
	r.max = max(r.max, v)
	if len(r.buf) < cap(r.buf) {
		r.buf = append(r.buf, v)
		return
	}
	r.rng ^= r.rng << 13 // xorshift64
	r.rng ^= r.rng >> 7
	r.rng ^= r.rng << 17
	if j := r.rng % r.seen; j < uint64(len(r.buf)) {
		r.buf[j] = v
	}
}

// roll returns the interval's percentiles in microseconds and starts the
// next interval.
func (r *reservoir) roll() Percentiles {
	p := Percentiles{N: r.seen}
	if n := len(r.buf); n > 0 {
		slices.Sort(r.buf)
		at := func(q float64) float64 { return float64(r.buf[int(q*float64(n-1))]) / 1e3 }
		p.P50, p.P99, p.Max = at(0.50), at(0.99), float64(r.max)/1e3
	}
	r.buf, r.seen, r.max = r.buf[:0], 0, 0
	return p
}

// threadTimings are the series of one RT thread.
type threadTimings struct {
	name            string
	th              *cycles.Thread
	rows            []int64
	cycle, lateness series
	stepNames       []string
	steps           []series
	lost            *metrics.Counter
	sum             cycles.Summary // since the start; collector's mu
}

// sourceTimings is the series of one UDPStreamer.
type sourceTimings struct {
	name string
	src  sendLatencies
	buf  []int64
	sent series
	lost *metrics.Counter
}

// timingHelp is the help of the timing histograms (docs/timings.md) and
// their loss counters.
var timingHelp = map[string]string{
	"streamerd_rt_cycle_seconds":                        "Time from one cycle's wake-up to the next one's, every cycle, in seconds.",
	"streamerd_rt_wakeup_lateness_seconds":              "Time between a cycle's deadline and the thread's wake-up, every cycle, in seconds.",
	"streamerd_rt_step_seconds":                         "Time of one execution of a step (GAM or broker, Synchronise included), in seconds.",
	"streamerd_rt_timing_samples_lost_total":            "Cycle timing samples overwritten before the collector read them (samples).",
	"streamerd_udpstreamer_synchronise_to_sent_seconds": "Time from the Synchronise that published a cycle to the return of the send of its update, in seconds.",
	"streamerd_udpstreamer_timing_samples_lost_total":   "Synchronise-to-sent samples overwritten before the collector read them (samples).",
}

// timingCollector drains every ring into its series.
type timingCollector struct {
	mu      sync.Mutex // guards the series' last and lost counts for /status
	threads []*threadTimings
	sources []*sourceTimings
	stop    chan struct{}
	done    chan struct{}
}

// newTimingCollector registers the histograms of every thread and
// UDPStreamer of a.
func newTimingCollector(a *App) *timingCollector {
	c := &timingCollector{}
	for _, th := range a.threads {
		c.threads = append(c.threads, newThreadTimings(a.ms, th.rt))
	}
	for _, s := range a.sources {
		if src, ok := internalsOf(s.ds).(sendLatencies); ok {
			l := fmt.Sprintf(`datasource=%q`, s.cfg.Name)
			c.sources = append(c.sources, &sourceTimings{
				name: s.cfg.Name, src: src, buf: make([]int64, 4096),
				sent: newSeries(a.ms, "streamerd_udpstreamer_synchronise_to_sent_seconds{"+l+"}", spanBounds),
				lost: a.ms.NewCounter("streamerd_udpstreamer_timing_samples_lost_total{" + l + "}"),
			})
		}
	}
	return c
}

func newThreadTimings(ms *metrics.Set, th *cycles.Thread) *threadTimings {
	l := fmt.Sprintf(`thread=%q`, th.Name())
	t := &threadTimings{
		name:     th.Name(),
		th:       th,
		rows:     make([]int64, 1024*th.TimingWidth()),
		cycle:    newSeries(ms, "streamerd_rt_cycle_seconds{"+l+"}", cycleBounds(th.Period())),
		lateness: newSeries(ms, "streamerd_rt_wakeup_lateness_seconds{"+l+"}", latenessBounds),
		lost:     ms.NewCounter("streamerd_rt_timing_samples_lost_total{" + l + "}"),
		sum:      cycles.NewSummary(th.TimingWidth() - cycles.TimingSteps),
	}
	for _, st := range th.Stats().Steps {
		t.stepNames = append(t.stepNames, st.Name)
		t.steps = append(t.steps, newSeries(ms, fmt.Sprintf(`streamerd_rt_step_seconds{%s,step=%q}`, l, st.Name), spanBounds))
	}
	return t
}

// start runs the collector until stop.
func (c *timingCollector) start() {
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go c.run()
}

// stopAndWait stops the collector after a last drain.
func (c *timingCollector) stopAndWait() {
	if c.stop == nil {
		return
	}
	close(c.stop)
	<-c.done
	c.stop = nil
}

func (c *timingCollector) run() {
	defer close(c.done)
	tick := time.NewTicker(timingsDrain)
	defer tick.Stop()
	rolled := time.Now()
	for {
		select {
		case <-c.stop:
			c.drain()
			return
		case now := <-tick.C:
			c.drain()
			if now.Sub(rolled) >= timingsInterval {
				c.roll()
				rolled = now
			}
		}
	}
}

// drain moves every ring's new samples into the series.
func (c *timingCollector) drain() {
	for _, t := range c.threads {
		w := t.th.TimingWidth()
		for {
			n, lost := t.th.DrainTimings(t.rows)
			t.lost.Add(int(lost))
			c.mu.Lock()
			for i := range n {
				t.sum.Add(t.rows[i*w : (i+1)*w])
			}
			c.mu.Unlock()
			for i := range n {
				row := t.rows[i*w : (i+1)*w]
				t.lateness.add(row[cycles.TimingLateness])
				if row[cycles.TimingCycle] > 0 {
					t.cycle.add(row[cycles.TimingCycle])
				}
				for k := range t.steps {
					t.steps[k].add(row[cycles.TimingSteps+k])
				}
			}
			if n < len(t.rows)/w {
				break
			}
		}
	}
	for _, s := range c.sources {
		for {
			n, lost := s.src.DrainSendLatencies(s.buf)
			s.lost.Add(int(lost))
			for _, v := range s.buf[:n] {
				s.sent.add(v)
			}
			if n < len(s.buf) {
				break
			}
		}
	}
}

// roll closes the interval of every series.
func (c *timingCollector) roll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.threads {
		t.cycle.last = t.cycle.res.roll()
		t.lateness.last = t.lateness.res.roll()
		for k := range t.steps {
			t.steps[k].last = t.steps[k].res.roll()
		}
	}
	for _, s := range c.sources {
		s.sent.last = s.sent.res.roll()
	}
}

// readSummary copies the summary since the start of thread i (in the
// order of the App's threads) into dst; it does not allocate once dst has
// been filled before.
func (c *timingCollector) readSummary(i int, dst *cycles.Summary) {
	if c == nil || i >= len(c.threads) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.threads[i].sum.CopyTo(dst)
}

// status returns the last completed interval of every series.
func (c *timingCollector) status() *TimingsStatus {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &TimingsStatus{IntervalS: timingsInterval.Seconds()}
	for _, t := range c.threads {
		ts := ThreadTimingsStatus{Thread: t.name, CycleTime: t.cycle.last, WakeupLateness: t.lateness.last, SamplesLost: t.lost.Get()}
		for k := range t.steps {
			ts.Steps = append(ts.Steps, StepTimingStatus{Step: t.stepNames[k], Exec: t.steps[k].last})
		}
		st.Threads = append(st.Threads, ts)
	}
	for _, s := range c.sources {
		st.DataSources = append(st.DataSources, DataSourceTimingStatus{DataSource: s.name, SynchroniseToSent: s.sent.last, SamplesLost: s.lost.Get()})
	}
	return st
}

// Histogram buckets, in seconds: microsecond steps where the values
// cluster, coarser beyond.
var (
	// latenessBounds: wake-up lateness, from 1 µs to 100 ms.
	latenessBounds = steps125(1e-6, 1e-1)
	// spanBounds: a step's execution, Synchronise to sent: 100 ns to 100 ms.
	spanBounds = steps125(1e-7, 1e-1)
)

// steps125 returns 1, 2, 5 × 10^k from lo to hi.
func steps125(lo, hi float64) []float64 {
	var b []float64
	for d := lo; d <= hi*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := d * m; v <= hi*1.0001 {
				b = append(b, v)
			}
		}
	}
	return b
}

// cycleBounds are the buckets of a cycle time around period: the period,
// then ±1, 2, 5 µs ... ±50 ms around it (those above 0), then 2, 5 and 10
// periods.
func cycleBounds(period time.Duration) []float64 {
	p := period.Seconds()
	b := []float64{p}
	for _, d := range steps125(1e-6, 5e-2) {
		if p-d > 0 {
			b = append(b, p-d)
		}
		b = append(b, p+d)
	}
	b = append(b, 2*p, 5*p, 10*p)
	slices.Sort(b)
	return slices.Compact(b)
}
