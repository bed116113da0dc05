package forensics

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// Metric families the monitor registers, with their help.
const (
	// LateCyclesMetric counts, per RT thread and cause, the cycles that
	// woke later than the thread's LateThreshold or overran their period.
	LateCyclesMetric = "streamerd_rt_late_cycles_total"
	LateCyclesHelp   = "RT cycles that woke later than the thread's LateThreshold or overran their period, by cause"
	// SkippedCyclesMetric counts, per producer and cause, the cycles it
	// skipped at the hand-off to its network thread.
	SkippedCyclesMetric = "streamerd_datasource_skipped_cycles_total"
	SkippedCyclesHelp   = "cycles a producer skipped at the hand-off to its network thread, by cause"
	// MissedPeriodsMetric counts, per RT thread and cause, the periods the
	// thread skipped after its late cycles: the gaps a client sees in the
	// Counter signal, each put down to the cause of the cycle before it.
	// Its sum over the causes is the thread's
	// streamerd_rt_missed_periods_total once the monitor has explained
	// every event, less the periods after stamps it lost (counted as
	// unknown late cycles, their periods unknown).
	MissedPeriodsMetric = "streamerd_rt_missed_periods_by_cause_total"
	MissedPeriodsHelp   = "periods an RT thread skipped after a late cycle, by the cause of that cycle"
)

// Defaults of Config.
const (
	DefaultInterval = 10 * time.Millisecond
	DefaultHistory  = 5 * time.Second
)

// Bounds of the monitor's memory per watched source.
const (
	pendingEvents = 4096 // stamped, waiting for the samples after them
	recentEvents  = 64   // attributed, kept for Status
	drainBatch    = 256
	statBytes     = 16 << 10 // /proc/stat: the CPU lines come first
	taskBytes     = 4 << 10  // /proc/self/task/TID/{stat,schedstat,status}
	logEvery      = time.Second
)

// Thread is what the monitor needs of an RT thread; *cycles.Thread has it.
type Thread interface {
	Name() string
	Period() time.Duration
	LateThreshold() time.Duration
	ThreadID() int
	Affinity() cpu.Mask
	DrainLateCycles(dst []cycles.LateCycle) (n int, lost uint64)
	ReadStats(dst *rt.Stats)
}

// Producer is what the monitor needs of a producer that stamps the cycles
// it skips at the hand-off (*udpstreamer.Streamer, *flatudp.Sender).
type Producer interface {
	DrainSkips(dst []int64) (n int, lost uint64)
	NetworkThreadID() int
}

// Config configures a Monitor. The zero value works.
type Config struct {
	// Interval is how often the counters are sampled (DefaultInterval):
	// the resolution of the evidence. A sample reads /proc/stat and three
	// small files per watched thread, about 20 µs.
	Interval time.Duration
	// History is how far back samples are kept (DefaultHistory): an event
	// drained later than that is explained from the oldest sample kept.
	History time.Duration
	// Metrics receives the counters (nil: a private set).
	Metrics *metrics.Set
	// Log receives at most one line per second per source naming the
	// cause of its worst event (nil: no logging).
	Log *slog.Logger
	// OnEvent, if set, is called on the monitor's goroutine with every
	// event explained, for tools that keep them all; it must not keep ev.
	OnEvent func(ev *Event)
}

// Monitor explains late and skipped cycles. It samples what Linux and the
// Go runtime count (steal per CPU, each watched thread's run-queue wait,
// involuntary switches and page faults, Go's stop-the-world pauses) every
// Interval on its own goroutine, drains the stamps the RT threads and
// producers left, and puts each event down to the cause that accounts for
// most of it. Nothing of it runs on an RT thread, and after Start it does
// not allocate unless it logs.
//
// Watch everything, then Start; Stop ends it after explaining what is
// left. Status may be called from any goroutine.
type Monitor struct {
	cfg     Config
	watches []*watch
	hist    history
	pauses  *pauseReader
	stat    procFile
	buf     []byte
	steal   [maxCPUs]int64
	cpus    int
	budget  float64 // real-time share the kernel allows, 0: unlimited
	lag     int64   // ns after an event before it is explained
	lastNow int64   // cpu.Now at the last sample
	lastAt  time.Time

	mu       sync.Mutex // guards every watch's recent, lost and log state
	stopping atomic.Bool
	stop     chan struct{}
	done     chan struct{}
	started  bool
}

// watch is one RT thread or producer the monitor follows.
type watch struct {
	name      string
	skips     bool // a producer
	th        Thread
	prod      Producer
	steps     []string
	threshold time.Duration
	behind    int64 // a producer: how long its network thread was behind at a skip, ns
	mask      cpu.Mask
	fifo      bool

	tid   int
	files [3]procFile // stat, schedstat, status

	late    []cycles.LateCycle
	stats   *rt.Stats // ReadStats's buffer
	stamps  []int64
	pending []pendingEvent

	counters [NumCauses]*metrics.Counter
	missed   [NumCauses]*metrics.Counter // an RT thread's missed periods

	// Guarded by Monitor.mu.
	recent  [recentEvents]Event
	nRecent uint64
	lost    uint64

	event Event // OnEvent's argument; the monitor's goroutine only

	// Log state, the monitor's goroutine only.
	logN     int
	logWorst Event
	lastLog  int64
}

type pendingEvent struct {
	sp span
	ev Event
	at int64 // the event's instant, cpu.Now ns
}

// New returns a Monitor with nothing watched.
func New(cfg Config) *Monitor {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.History <= 0 {
		cfg.History = DefaultHistory
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewSet()
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Monitor{cfg: cfg, cpus: min(runtime.NumCPU(), maxCPUs), budget: rtBudget(), lag: int64(cfg.Interval)}
}

// WatchThread follows th, whose steps (GAMs then brokers, in order) are
// named steps; fifo says whether it runs SCHED_FIFO. Call before Start.
func (m *Monitor) WatchThread(th Thread, steps []string, fifo bool) {
	w := m.newWatch(th.Name(), false, fifo)
	w.th, w.steps, w.threshold = th, steps, th.LateThreshold()
	w.late = make([]cycles.LateCycle, drainBatch)
	w.stats = &rt.Stats{}
	th.ReadStats(w.stats) // sized once
	for c := range NumCauses {
		w.counters[c] = m.cfg.Metrics.GetOrCreateCounter(fmt.Sprintf(`%s{thread=%q,cause=%q}`, LateCyclesMetric, w.name, c))
		w.missed[c] = m.cfg.Metrics.GetOrCreateCounter(fmt.Sprintf(`%s{thread=%q,cause=%q}`, MissedPeriodsMetric, w.name, c))
	}
}

// WatchProducer follows producer p, named name. When it skips a cycle its
// network thread had not taken a cycle for behind (HandOffDepth periods
// of the thread that synchronises it); mask is that network thread's
// CPUMask and fifo whether it runs SCHED_FIFO. Call before Start.
func (m *Monitor) WatchProducer(name string, p Producer, behind time.Duration, mask cpu.Mask, fifo bool) {
	w := m.newWatch(name, true, fifo)
	w.prod, w.behind, w.mask = p, int64(max(behind, time.Microsecond)), mask
	w.stamps = make([]int64, drainBatch)
	for c := range NumCauses {
		w.counters[c] = m.cfg.Metrics.GetOrCreateCounter(fmt.Sprintf(`%s{datasource=%q,cause=%q}`, SkippedCyclesMetric, w.name, c))
	}
}

func (m *Monitor) newWatch(name string, skips, fifo bool) *watch {
	w := &watch{name: name, skips: skips, fifo: fifo, pending: make([]pendingEvent, 0, pendingEvents), lastLog: math.MinInt64 / 2}
	for i := range w.files {
		w.files[i] = procFile{fd: -1}
	}
	m.watches = append(m.watches, w)
	return w
}

// Start takes the first sample and starts the monitor's goroutine.
func (m *Monitor) Start() {
	if m.started {
		return
	}
	m.started = true
	m.init()
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	go m.run()
}

// init allocates the history and the readers and takes the first sample.
func (m *Monitor) init() {
	size := int(m.cfg.History/m.cfg.Interval) + 2
	m.hist = newHistory(size, m.cpus, len(m.watches))
	m.pauses = newPauseReader()
	m.stat = openProc("/proc/stat")
	m.buf = make([]byte, statBytes)
	m.sample(0)
}

// Stop explains the events stamped so far with the samples taken, and
// ends the monitor's goroutine.
func (m *Monitor) Stop() {
	if !m.started || m.stop == nil {
		return
	}
	m.stopping.Store(true)
	<-m.done
	m.stop = nil
	m.stat.close()
	for _, w := range m.watches {
		for i := range w.files {
			w.files[i].close()
		}
	}
}

// run samples and explains every Interval until Stop. It sleeps rather
// than selecting on a ticker and the stop channel: a goroutine blocked in
// a select takes sudogs from the runtime's caches, which allocates now and
// then; a sleep and an atomic flag never do.
func (m *Monitor) run() {
	defer close(m.done)
	next := time.Now()
	for {
		next = next.Add(m.cfg.Interval)
		behind := time.Duration(0)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
			behind = time.Since(next)
		} else {
			behind, next = -d, time.Now() // behind: start again from now
		}
		if m.stopping.Load() {
			m.sample(behind)
			m.explain(true)
			return
		}
		m.sample(behind)
		m.explain(false)
	}
}

// sample reads every counter into the next slot of the history; behind
// is how long after it was due the monitor's sleep ended.
func (m *Monitor) sample(behind time.Duration) {
	s := m.hist.next()
	s.at = cpu.Now()
	s.behind = int64(max(behind, 0))
	m.lastNow, m.lastAt = s.at, time.Now()
	s.stealOK = 0
	if b, ok := m.stat.read(m.buf); ok {
		s.stealOK = parseCPUSteal(b, &m.steal)
		copy(s.steal, m.steal[:m.cpus])
	}
	s.pauses = m.pauses.read()
	for i, w := range m.watches {
		s.threads[i] = w.read(m.buf)
	}
}

// read samples the watched thread's /proc files, reopening them when the
// thread changed (a restart runs a new OS thread).
func (w *watch) read(buf []byte) threadSample {
	tid := 0
	if w.skips {
		tid = w.prod.NetworkThreadID()
	} else {
		tid = w.th.ThreadID()
		w.mask = w.th.Affinity()
	}
	if tid != w.tid {
		for i := range w.files {
			w.files[i].close()
		}
		w.tid = tid
		if tid > 0 {
			w.files = [3]procFile{openTask(tid, "stat"), openTask(tid, "schedstat"), openTask(tid, "status")}
		}
	}
	ts := threadSample{tid: tid, cpu: -1}
	if tid <= 0 {
		return ts
	}
	buf = buf[:taskBytes]
	b, ok := w.files[0].read(buf)
	st, ok := parseTaskStat(b)
	if !ok {
		return ts
	}
	ts.minflt, ts.majflt, ts.cpu = st.minflt, st.majflt, st.cpu
	if b, ok = w.files[1].read(buf); ok {
		ts.run, ts.wait, ok = parseSchedstat(b)
	}
	if !ok {
		return ts
	}
	if b, ok = w.files[2].read(buf); ok {
		ts.vcsw, ts.nvcsw, ok = parseSwitches(b)
	}
	if ok && !w.skips {
		ts.countsMatch = w.readCounts(buf, &ts)
	}
	ts.ok = ok
	return ts
}

// countTries is how many times readCounts reads an RT thread's counts
// before it gives up matching them with its switches.
const countTries = 3

// readCounts reads the RT thread's cycles and yields and reports whether
// they match ts's switches: read with no switch of the thread between the
// status read before and one after. A cycle is counted before its sleep,
// so counts read after the thread ran a cycle and slept, while the
// switches read before did not see that sleep, would show a block that
// never was; the thread runs that cycle in the monitor's way whenever it
// preempts the monitor between the two reads. On a switch it reads again.
func (w *watch) readCounts(buf []byte, ts *threadSample) bool {
	return matchCounts(ts, func() (uint64, uint64) {
		w.th.ReadStats(w.stats)
		return w.stats.Cycles, w.stats.Yields
	}, func() (uint64, uint64, bool) {
		b, ok := w.files[2].read(buf)
		if !ok {
			return 0, 0, false
		}
		return parseSwitches(b)
	})
}

// matchCounts is readCounts over the two reads: it sets ts's cycles and
// yields from counts, with ts.vcsw (already read) and what switches reads
// after them agreeing, reading both again on a switch.
func matchCounts(ts *threadSample, counts func() (cycles, yields uint64), switches func() (vol, invol uint64, ok bool)) bool {
	for range countTries {
		ts.cycles, ts.yields = counts()
		vcsw, nvcsw, ok := switches()
		if !ok {
			return false
		}
		if vcsw == ts.vcsw {
			return true
		}
		ts.vcsw, ts.nvcsw = vcsw, nvcsw
	}
	return false
}

// explain drains every source's stamps and explains the events whose
// samples are in: a sample lag after their end, or all of them when final.
func (m *Monitor) explain(final bool) {
	last := m.hist.last()
	for wi, w := range m.watches {
		m.collect(w)
		keep := w.pending[:0]
		for _, p := range w.pending {
			if !final && p.sp.to+m.lag > last.at {
				keep = append(keep, p)
				continue
			}
			m.attribute(wi, w, &p)
		}
		w.pending = keep
		m.maybeLog(w, last.at)
	}
}

// collect moves the source's new stamps into its pending events.
func (m *Monitor) collect(w *watch) {
	for len(w.pending) < cap(w.pending) {
		room := min(cap(w.pending)-len(w.pending), drainBatch)
		var n int
		var lost uint64
		if w.skips {
			n, lost = w.prod.DrainSkips(w.stamps[:room])
			for _, t := range w.stamps[:n] {
				w.pending = append(w.pending, pendingEvent{
					sp: span{from: t - w.behind, to: t},
					ev: Event{Source: w.name, Late: time.Duration(w.behind), Skip: true},
					at: t,
				})
			}
		} else {
			n, lost = w.th.DrainLateCycles(w.late[:room])
			for i := range w.late[:n] {
				w.pending = append(w.pending, w.lateEvent(&w.late[i]))
			}
		}
		if lost > 0 {
			m.mu.Lock()
			w.lost += lost
			m.mu.Unlock()
			w.counters[Unknown].Add(int(lost))
		}
		if n < room {
			return
		}
	}
}

// lateEvent turns an RT thread's stamp into a pending event: a late
// wake-up asks to explain deadline..wake, an overrun wake..end, both
// deadline..end.
func (w *watch) lateEvent(lc *cycles.LateCycle) pendingEvent {
	late := lc.Wake > w.threshold
	over := lc.Missed > 0
	sp := span{from: lc.Deadline, to: lc.Deadline + int64(lc.Wake), asleep: late, overran: over}
	lateBy := lc.Wake
	if over {
		sp.to = lc.Deadline + int64(lc.End)
		sp.steps = int64(lc.End - lc.Wake)
		if !late {
			sp.from += int64(lc.Wake)
		}
		lateBy = max(lateBy, lc.End-w.th.Period())
	}
	ev := Event{Source: w.name, Counter: lc.Counter, Late: lateBy, Missed: lc.Missed}
	if lc.Step >= 0 && lc.Step < len(w.steps) {
		ev.Evidence.Step, ev.Evidence.StepTime = w.steps[lc.Step], lc.StepTime
	}
	ev.Evidence.YieldLate = lc.YieldLate
	return pendingEvent{sp: sp, ev: ev, at: lc.Deadline}
}

// attribute explains one event, counts it and keeps it for Status.
func (m *Monitor) attribute(wi int, w *watch, p *pendingEvent) {
	ev := p.ev
	ev.Time, ev.At = m.lastAt.Add(time.Duration(p.at-m.lastNow)), p.at
	var c counts
	if i0, i1, ok := m.hist.enclose(p.sp.from, p.sp.to+m.lag); ok {
		c = m.evidence(wi, w, i0, i1)
		c.RuntimeStall = time.Duration(m.hist.runtimeStall(i0, i1, p.sp.from, p.sp.to))
	} else {
		c.CPU = -1
	}
	c.Step, c.StepTime, c.YieldLate = ev.Evidence.Step, ev.Evidence.StepTime, ev.Evidence.YieldLate
	c.FIFO = w.fifo
	if c.YieldLate > 0 && c.ThreadKnown {
		// Its yield came back late: blocked in the Go runtime, not asleep.
		c.Blocked++
	}
	ev.Evidence = c.Evidence
	sp := p.sp
	if w.skips && c.ThreadKnown && c.Window > 0 {
		// The network thread's share of the window spent running, over
		// the time it was behind.
		sp.busy = int64(float64(c.Run) / float64(c.Window) * float64(sp.to-sp.from))
	}
	ev.Cause = attribute(sp, &c, w.fifo, m.budget)
	w.counters[ev.Cause].Inc()
	if ev.Missed > 0 {
		w.missed[ev.Cause].AddInt64(int64(ev.Missed))
	}
	if m.cfg.OnEvent != nil {
		w.event = ev // a copy the callback may read: ev itself stays on the stack
		m.cfg.OnEvent(&w.event)
	}
	m.mu.Lock()
	w.recent[w.nRecent%recentEvents] = ev
	w.nRecent++
	m.mu.Unlock()
	if w.logN == 0 || ev.Late > w.logWorst.Late {
		w.logWorst = ev
	}
	w.logN++
}

// evidence is what changed between samples i0 and i1 for watch wi.
func (m *Monitor) evidence(wi int, w *watch, i0, i1 int) counts {
	a, b := m.hist.at(i0), m.hist.at(i1)
	var c counts
	c.Window = time.Duration(b.at - a.at)
	c.CPU = -1
	ta, tb := &a.threads[wi], &b.threads[wi]
	if ta.ok && tb.ok && ta.tid == tb.tid {
		c.ThreadKnown = true
		c.Wait = time.Duration(tb.wait - ta.wait)
		c.Run = time.Duration(tb.run - ta.run)
		c.InvoluntarySwitches = tb.nvcsw - ta.nvcsw
		// One voluntary switch per sleep, and at most one per yield of its P.
		if sleeps := tb.cycles - ta.cycles + tb.yields - ta.yields; !w.skips && ta.countsMatch && tb.countsMatch && tb.vcsw-ta.vcsw > sleeps {
			c.Blocked = tb.vcsw - ta.vcsw - sleeps
		}
		c.MinorFaults = tb.minflt - ta.minflt
		c.MajorFaults = tb.majflt - ta.majflt
		c.CPU = tb.cpu
		c.runShare = m.runShare(wi, i1)
		if per, ok := m.runPerCycle(wi, i0); ok && !w.skips {
			usual := int64(float64(tb.cycles-ta.cycles) * per)
			c.ExtraRun = time.Duration(max(tb.run-ta.run-usual, 0))
		}
	}
	if w.mask.Count() == 1 {
		for i := range maxCPUs {
			if w.mask.Has(i) {
				c.CPU = i
			}
		}
	}
	both := a.stealOK & b.stealOK
	steal := func(cpu int) time.Duration {
		if cpu < 0 || cpu >= len(a.steal) || both&(1<<cpu) == 0 {
			return 0
		}
		return time.Duration(b.steal[cpu] - a.steal[cpu])
	}
	c.StealLastSecond = m.stealLastSecond(i1, c.CPU)
	switch {
	case c.CPU >= 0:
		c.Steal = steal(c.CPU)
		if c.ThreadKnown && ta.cpu != tb.cpu && w.mask.Count() != 1 {
			c.Steal = max(c.Steal, steal(ta.cpu)) // it moved
		}
	default: // nothing says where it ran: the most stolen CPU
		for i := range a.steal {
			c.Steal = max(c.Steal, steal(i))
		}
	}
	c.GoPauses = b.pauses.gcN + b.pauses.otherN - a.pauses.gcN - a.pauses.otherN
	c.GCPauses = b.pauses.gcN - a.pauses.gcN
	c.GoPause = time.Duration(b.pauses.gcNs + b.pauses.otherNs - a.pauses.gcNs - a.pauses.otherNs)
	return c
}

// stealLastSecond is the steal on cpu (the most stolen CPU when -1) over
// the second before sample i1.
func (m *Monitor) stealLastSecond(i1, cpu int) time.Duration {
	b := m.hist.at(i1)
	j := m.hist.secondBefore(i1)
	a := m.hist.at(j)
	both := a.stealOK & b.stealOK
	var s int64
	for i := range a.steal {
		if (cpu < 0 || i == cpu) && both&(1<<i) != 0 {
			s = max(s, b.steal[i]-a.steal[i])
		}
	}
	return time.Duration(s)
}

// lastSecond returns watch wi's thread samples a second before sample i
// and at i, and the time between them; ok is false if the thread's counts
// are not known at both or it changed.
func (m *Monitor) lastSecond(wi, i int) (ta, tb *threadSample, dt int64, ok bool) {
	j := m.hist.secondBefore(i)
	a, b := m.hist.at(j), m.hist.at(i)
	ta, tb = &a.threads[wi], &b.threads[wi]
	return ta, tb, b.at - a.at, j != i && ta.ok && tb.ok && ta.tid == tb.tid
}

// runPerCycle is the CPU time per cycle (ns) of watch wi's RT thread over
// the second before sample i0: its usual cost of a cycle.
func (m *Monitor) runPerCycle(wi, i0 int) (float64, bool) {
	ta, tb, _, ok := m.lastSecond(wi, i0)
	if !ok || tb.cycles <= ta.cycles {
		return 0, false
	}
	return float64(tb.run-ta.run) / float64(tb.cycles-ta.cycles), true
}

// runShare is the share of its CPU that watch wi's thread used over the
// last second before sample i1 (the kernel's RT period), 0 if unknown.
func (m *Monitor) runShare(wi, i1 int) float64 {
	ta, tb, dt, ok := m.lastSecond(wi, i1)
	if !ok {
		return 0
	}
	return float64(tb.run-ta.run) / float64(dt)
}

// maybeLog writes the source's line for the last second, if it had
// events and its last line is a second old.
func (m *Monitor) maybeLog(w *watch, now int64) {
	if w.logN == 0 || now-w.lastLog < int64(logEvery) {
		return
	}
	if !m.cfg.Log.Enabled(context.Background(), slog.LevelWarn) {
		w.logN, w.lastLog = 0, now // nothing formatted: no allocation
		return
	}
	ev := &w.logWorst
	var msg string
	if w.skips {
		msg = fmt.Sprintf("%s: %s skipped at the hand-off: %s", w.name, plural(w.logN, "cycle"), ev.Explain())
	} else {
		msg = fmt.Sprintf("%s: %s, worst %s: %s", w.name, plural(w.logN, "late cycle"), ms(ev.Late), ev.Explain())
	}
	kind := "thread"
	if w.skips {
		kind = "datasource"
	}
	m.cfg.Log.Warn(msg, kind, w.name, "events", w.logN, "worst_ms", math.Round(float64(ev.Late)/1e5)/10, "cause", ev.Cause.String())
	w.logN, w.lastLog = 0, now
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// rtBudget reads the kernel's real-time share of a CPU: 0.95 by default,
// 0 when unlimited (sched_rt_runtime_us = -1) or unreadable.
func rtBudget() float64 {
	read := func(name string) int64 {
		b, err := os.ReadFile("/proc/sys/kernel/" + name)
		if err != nil {
			return 0
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0
		}
		return v
	}
	run, per := read("sched_rt_runtime_us"), read("sched_rt_period_us")
	if run <= 0 || per <= 0 {
		return 0
	}
	return float64(run) / float64(per)
}
