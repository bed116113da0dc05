// Package app builds a streamerd application from its configuration and runs it: datasources, GAMs, brokers, RT threads, HTTP metrics, status and operator control.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/internal/force"
	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/internal/gam"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/pmqos"
	"github.com/streamerd/streamerd/rt"
)

// App is a built application. Build wires everything and allocates all
// memory; Start opens sockets and starts threads; Stop undoes Start. The
// methods are safe to call from any goroutine.
type App struct {
	file *config.File
	log  *slog.Logger
	ms   *metrics.Set

	sources []*source
	threads []*thread

	httpSrv *http.Server
	httpLn  net.Listener
	guard   *httpGuard
	scope   *appScope // the web scope, when App.ScopeAddress is set

	procMetrics procMetrics // the runtime metrics of /metrics, cached

	events  eventLog
	timings *timingCollector   // cycle timing histograms and percentiles
	late    *forensics.Monitor // explains late and skipped cycles
	tracer  *lateTracer        // App.LateTraceDir: Go execution traces of late cycles; nil when off

	wakeHold io.Closer // the PM QoS wake-latency hold, when configured

	rtp runtimePolicy // restored by Stop

	stopPublish chan struct{}
	publishDone chan struct{}

	mu       sync.Mutex
	started  bool
	stopped  bool
	stopping atomic.Bool // Stop has begun: control requests get 503
}

// source is one datasource with what the app keeps about it.
type source struct {
	cfg    *config.DataSource
	ds     datasource.DataSource
	forces force.Forces
	thread int // index of the thread that synchronises it
}

// thread is one RT thread with its GAMs and brokers.
type thread struct {
	cfg      *config.Thread
	rt       *cycles.Thread
	gams     []gam.GAM // per output instances, in execution order
	brokers  []*broker.MemoryMapSynchronisedOutputBroker
	timers   []*gam.Timer    // bound to the rt.Thread once it exists
	timed    []*gam.Waveform // TimeInput waveforms, bound to its Time likewise
	stats    rt.Stats        // publisher's buffers
	sum      cycles.Summary
	pub      threadMetrics
	failures stepFailures // what the publisher has logged of failing steps
}

// Build wires the application described by f: it constructs and validates
// the datasources (their errors carry f's file positions), allocates their
// memory, builds one GAM instance per output, one broker per thread and
// datasource, and the RT threads. Metrics go to ms; logs to log.
func Build(f *config.File, ms *metrics.Set, log *slog.Logger) (*App, error) {
	a := &App{file: f, log: log, ms: ms}
	a.events.init(eventRingSize)
	a.guard = newHTTPGuard(ms, httpBounds.maxInFlight, httpBounds.maxBody)
	if p := f.App.HTTPTokenFile; p != "" && (f.App.HTTPAddress != "" || f.App.ScopeAddress != "") {
		tok, err := httpguard.ReadToken(p)
		if err != nil {
			return nil, f.Errorf("App.HTTPTokenFile", "%v", err)
		}
		a.guard.token = tok
	}
	if dir := f.App.LateTraceDir; dir != "" {
		if err := checkTraceDir(dir); err != nil {
			return nil, f.Errorf("App.LateTraceDir", "%v", err)
		}
		a.tracer = newLateTracer(dir, log)
	}
	var errs []error
	for i := range f.DataSources {
		d := &f.DataSources[i]
		ds, err := newDataSource(d, cyclePeriod(f, i), ms, log)
		if err != nil {
			errs = append(errs, f.WrapConfigErrors(i, err))
			continue
		}
		a.sources = append(a.sources, &source{cfg: d, ds: ds, thread: -1})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, s := range a.sources {
		if err := s.ds.AllocateMemory(); err != nil {
			return nil, err
		}
	}
	for ti := range f.Threads {
		th, err := a.buildThread(ti)
		if err != nil {
			return nil, err
		}
		a.threads = append(a.threads, th)
	}
	a.timings = newTimingCollector(a)
	a.late = a.newMonitor()
	return a, nil
}

// buildThread builds the GAMs of thread ti, a broker per datasource they
// feed, and the rt.Thread.
func (a *App) buildThread(ti int) (*thread, error) {
	tc := &a.file.Threads[ti]
	th := &thread{cfg: tc}
	var steps []rt.Step
	// outputs[g][o] is the memory of output o of GAM g (file indices).
	outputs := map[int][]gam.Output{}
	feeds := map[int][]broker.Output{} // by datasource index
	for _, gi := range tc.GAMIndex {
		g := &a.file.GAMs[gi]
		mems := make([]gam.Output, len(g.Outputs))
		for oi := range g.Outputs {
			o := &g.Outputs[oi]
			sig := &a.file.DataSources[o.DataSourceIndex].Signals[o.SignalIndex]
			inst, mem, err := a.newGAMInstance(g, oi, sig, tc, outputs, th)
			if err != nil {
				return nil, err
			}
			mems[oi] = mem
			if inst != nil {
				steps = append(steps, rt.Step{Name: inst.Name(), Exec: inst})
				th.gams = append(th.gams, inst)
			}
			feeds[o.DataSourceIndex] = append(feeds[o.DataSourceIndex], broker.BindBytes(sig.Name, mem.Type, mem.Mem))
		}
		outputs[gi] = mems
	}
	// Datasources fed by no GAM are synchronised by the first thread, so
	// forced values and RD100S emission still reach them; a Replay
	// synchronises itself.
	if ti == 0 {
		for di := range a.sources {
			if !a.fedByAnyThread(di) && !selfSynchronised(a.sources[di].ds) {
				feeds[di] = nil
			}
		}
	}
	var brokers []rt.Step
	for di := range a.sources {
		outs, ok := feeds[di]
		if !ok {
			continue
		}
		s := a.sources[di]
		if s.thread >= 0 {
			return nil, fmt.Errorf("datasource %q is fed by threads %q and %q; a datasource is synchronised by one thread",
				s.cfg.Name, a.file.Threads[s.thread].Name, tc.Name)
		}
		s.thread = ti
		// The operator's forced values are written over the outputs in
		// Synchronise, after the broker's copies.
		b, err := broker.NewMemoryMapSynchronisedOutputBroker(s.forces.Wrap(s.ds), outs)
		if err != nil {
			return nil, err
		}
		th.brokers = append(th.brokers, b)
		brokers = append(brokers, rt.Step{Name: "Broker." + s.cfg.Name, Exec: b})
	}
	r, err := cycles.New(rt.Config{
		Name:            tc.Name,
		Period:          tc.Period,
		CPUMask:         tc.CPUMask,
		Priority:        tc.Priority,
		SleepNature:     tc.SleepNature,
		SleepPercentage: tc.SleepPercentage,
		LockMemory:      a.file.App.LockMemory && ti == 0,
		GCOff:           a.file.App.GCPolicy == "off" && ti == 0,
		MemoryLimit:     a.file.App.MemoryLimit,
	}, steps, brokers, tc.LateThreshold)
	if err != nil {
		return nil, fmt.Errorf("thread %q: %w", tc.Name, err)
	}
	// r.Warnings() are among the file's warnings (config.File.Warnings),
	// which the command prints where it loads the file.
	for _, t := range th.timers {
		t.Bind(r.Counter(), r.Time())
	}
	for _, w := range th.timed {
		w.BindTime(r.Time())
	}
	th.rt = r
	th.pub = newThreadMetrics(a.ms, tc.Name)
	return th, nil
}

// cyclePeriod returns the period of the thread that synchronises
// datasource di: the first whose GAMs feed it, else the first thread (as
// buildThread wires one fed by no GAM); 0 without threads.
func cyclePeriod(f *config.File, di int) time.Duration {
	for _, tc := range f.Threads {
		for _, gi := range tc.GAMIndex {
			for _, o := range f.GAMs[gi].Outputs {
				if o.DataSourceIndex == di {
					return tc.Period
				}
			}
		}
	}
	if len(f.Threads) > 0 {
		return f.Threads[0].Period
	}
	return 0
}

func (a *App) fedByAnyThread(di int) bool {
	for _, g := range a.file.GAMs {
		for _, o := range g.Outputs {
			if o.DataSourceIndex == di {
				return true
			}
		}
	}
	return false
}

// newGAMInstance builds the GAM that produces output oi of g, typed after
// the datasource signal it feeds. It returns the instance to run (nil when
// the output is served by an instance already built, as a Timer's second
// output) and the output memory.
func (a *App) newGAMInstance(g *config.GAM, oi int, sig *datasource.Signal, tc *config.Thread, outputs map[int][]gam.Output, th *thread) (gam.GAM, gam.Output, error) {
	o := &g.Outputs[oi]
	name := g.Name + "." + o.Signal + "->" + o.DataSource + "." + sig.Name
	switch g.Class {
	case config.ClassTimer:
		if sig.Type != datasource.Uint32 || sig.Elements() != 1 {
			return nil, gam.Output{}, fmt.Errorf("GAM %q: output %q feeds %s.%s, a %s[%d]; Timer outputs are uint32 scalars",
				g.Name, o.Signal, o.DataSource, sig.Name, sig.Type, sig.Elements())
		}
		// One Timer per output keeps each output's memory its own.
		var placeholder uint32
		t := gam.NewTimer(name, &placeholder, &placeholder)
		th.timers = append(th.timers, t)
		idx := 0
		if o.Signal == config.TimerTime {
			idx = 1
		}
		return t, t.Outputs()[idx], nil
	case config.ClassWaveform:
		if sig.Type == datasource.Char8 {
			return nil, gam.Output{}, fmt.Errorf("GAM %q: output %q feeds %s.%s, a %s[%d] (text); a Waveform writes numbers, a Text GAM writes text",
				g.Name, o.Signal, o.DataSource, sig.Name, sig.Type, sig.Elements())
		}
		w := g.Waveform
		shape, err := gam.ParseShape(w.Shape)
		if err != nil {
			return nil, gam.Output{}, fmt.Errorf("GAM %q: %w", g.Name, err)
		}
		inst, err := gam.NewWaveform(name, gam.WaveformConfig{
			Shape: shape, Amplitude: w.Amplitude, Frequency: w.Frequency, Offset: w.Offset, Phase: w.Phase,
			DutyCycle: w.DutyCycle, Seed: w.Seed, SamplingRate: w.SamplingRate,
			Type: sig.Type, Elements: sig.Elements(), CyclePeriod: tc.Period, TimeInput: w.TimeInput != "",
		})
		if err != nil {
			return nil, gam.Output{}, a.gamErrors(g, oi, err)
		}
		if w.TimeInput != "" {
			th.timed = append(th.timed, inst)
		}
		return inst, inst.Outputs()[0], nil
	case config.ClassText:
		if sig.Type != datasource.Char8 {
			return nil, gam.Output{}, fmt.Errorf("GAM %q: output %q feeds %s.%s, a %s[%d]; Text outputs are char8 arrays",
				g.Name, o.Signal, o.DataSource, sig.Name, sig.Type, sig.Elements())
		}
		inst, err := gam.NewText(name, g.Text, sig.Elements())
		if err != nil {
			return nil, gam.Output{}, a.gamErrors(g, oi, err)
		}
		return inst, inst.Outputs()[0], nil
	case config.ClassIOGAM:
		in := g.Inputs[oi]
		src := outputs[in.GAMIndex][in.OutputIndex]
		if src.Type != sig.Type || src.Elements != sig.Elements() {
			return nil, gam.Output{}, fmt.Errorf("GAM %q: input %s.%s is %s[%d] but output %q feeds %s.%s, a %s[%d]",
				g.Name, in.GAM, in.Signal, src.Type, src.Elements, o.Signal, o.DataSource, sig.Name, sig.Type, sig.Elements())
		}
		inst := gam.NewIOGAM(name, []gam.Output{src})
		return inst, inst.Outputs()[0], nil
	}
	return nil, gam.Output{}, fmt.Errorf("GAM %q: unknown class %q", g.Name, g.Class)
}

// gamErrors positions the GAM's rule errors at their keys in the file: a
// waveform's parameters are checked against the type and element count of
// each signal it feeds, which only the built GAM knows.
func (a *App) gamErrors(g *config.GAM, oi int, err error) error {
	gi := a.file.GAM(g.Name)
	var errs []error
	for _, e := range unjoin(err) {
		var ce *gam.ConfigError
		if !errors.As(e, &ce) {
			errs = append(errs, e)
			continue
		}
		o := &g.Outputs[oi]
		errs = append(errs, a.file.Errorf(fmt.Sprintf("GAMs[%d].%s", gi, ce.Parameter), "%s (for output %q feeding %s.%s)", ce.Rule, o.Signal, o.DataSource, o.Alias))
	}
	return errors.Join(errs...)
}

// unjoin returns the errors joined in err, or err alone.
func unjoin(err error) []error {
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		return u.Unwrap()
	}
	return []error{err}
}

// Start opens every listener and socket first (HTTP, each datasource's,
// the scope), then starts the datasources' network threads, the RT
// threads and the metrics publisher: a start that fails on a taken port
// has sent nothing. On error it stops what it started.
func (a *App) Start() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started {
		return errors.New("app: already started")
	}
	a.started = true
	var opened []*source
	fail := func(err error) error {
		if a.tracer != nil {
			a.tracer.stopAndWait()
		}
		a.stopScope()
		for _, s := range opened {
			s.ds.Close()
		}
		a.stopHTTP()
		a.releaseWakeHold()
		a.restoreRuntime()
		return err
	}
	// First, so the threads the producers and the HTTP server start are
	// cloned at the runtime's priority.
	if prio := a.file.App.RuntimePriority; prio > 0 {
		tids, err := setRuntimePriority(prio)
		a.rtp.runtimePrio = prio
		if err != nil {
			return fail(err)
		}
		a.log.Info("runtime threads at SCHED_FIFO", "priority", prio, "threads", len(tids))
		if msg := oneCPURuntime(prio, runtime.NumCPU()); msg != "" {
			a.log.Warn(msg, "priority", prio, "cpus", runtime.NumCPU())
		}
	}
	if a.tracer != nil {
		if err := a.tracer.start(); err != nil {
			return fail(err)
		}
		a.log.Info("late-cycle traces on", "dir", a.file.App.LateTraceDir, "at_most", a.tracer.max)
	}
	if err := a.startHTTP(); err != nil {
		return fail(a.file.At("App.HTTPAddress", err))
	}
	for _, s := range a.sources {
		if o, ok := openerOf(s.ds); ok {
			if err := o.Open(); err != nil {
				return fail(a.sourceAt(s, err))
			}
			opened = append(opened, s)
		}
	}
	// The scope needs the UDPStreamers' bound addresses; it talks only to
	// them.
	if err := a.startScope(); err != nil {
		return fail(a.file.At("App.ScopeAddress", err))
	}
	for _, s := range a.sources {
		if err := s.ds.PrepareNextState(); err != nil {
			return fail(a.sourceAt(s, err))
		}
		if !slices.Contains(opened, s) {
			opened = append(opened, s)
		}
	}
	if us := a.file.App.CPUWakeLatency; us >= 0 {
		h, err := pmqos.HoldWakeLatency(us)
		if err != nil {
			return fail(err)
		}
		a.wakeHold = h
		a.log.Info("holding the CPU wake-up latency", "us", us)
	}
	limit, source := a.setMemoryPolicy()
	a.log.Info("runtime policy", "memory_limit", limit, "source", source, "gogc", gcPercent())
	// Idle OS threads for the runtime to hand to goroutines blocked in
	// system calls, created now rather than lazily during the run.
	rt.WarmThreadPool(warmThreads)
	for i, th := range a.threads {
		if err := th.rt.Start(context.Background()); err != nil {
			for _, t := range a.threads[:i] {
				t.rt.Stop()
			}
			return fail(a.file.At(fmt.Sprintf("Threads[%d]", i), err))
		}
		a.log.Info("RT thread started", "thread", th.cfg.Name, "period", th.rt.Period().String(), "affinity", th.rt.Affinity().String())
	}
	a.stopPublish = make(chan struct{})
	a.publishDone = make(chan struct{})
	go a.publish()
	a.timings.start()
	a.late.Start()
	return nil
}

// sourceAt places an error of datasource s at its table in the file.
func (a *App) sourceAt(s *source, err error) error {
	return a.file.At(fmt.Sprintf("DataSources[%d]", a.file.DataSource(s.cfg.Name)), err)
}

// Stop stops the RT threads first (no more Synchronise), then the
// datasources, then HTTP and the publisher. It returns the first error.
func (a *App) Stop() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.started || a.stopped {
		return nil
	}
	a.stopped = true
	a.stopping.Store(true)
	a.stopScope()
	var errs []error
	for i := len(a.threads) - 1; i >= 0; i-- {
		if err := a.threads[i].rt.Stop(); err != nil && !errors.Is(err, rt.ErrNotRunning) {
			errs = append(errs, err)
		}
	}
	for _, s := range a.sources {
		if err := s.ds.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if a.stopPublish != nil {
		close(a.stopPublish)
		<-a.publishDone
	}
	a.timings.stopAndWait()
	a.late.Stop()
	if a.tracer != nil {
		a.tracer.stopAndWait()
	}
	a.stopHTTP()
	a.releaseWakeHold()
	a.restoreRuntime()
	return errors.Join(errs...)
}

func (a *App) releaseWakeHold() {
	if a.wakeHold != nil {
		a.wakeHold.Close()
		a.wakeHold = nil
	}
}

// HTTPAddr returns the address the HTTP endpoint listens on ("" if off).
func (a *App) HTTPAddr() string {
	if a.httpLn == nil {
		return ""
	}
	return a.httpLn.Addr().String()
}

// DataSource returns the datasource named name, or nil.
func (a *App) DataSource(name string) datasource.DataSource {
	for _, s := range a.sources {
		if s.cfg.Name == name {
			return s.ds
		}
	}
	return nil
}

// warmThreads is how many idle OS threads Start asks the runtime for.
const warmThreads = 8

// publishInterval is how often RT statistics reach the metrics.
const publishInterval = time.Second

// publish copies RT thread statistics into metrics, off the RT thread.
func (a *App) publish() {
	defer close(a.publishDone)
	tick := time.NewTicker(publishInterval)
	defer tick.Stop()
	for {
		for i, th := range a.threads {
			th.rt.ReadStats(&th.stats)
			a.timings.readSummary(i, &th.sum)
			th.pub.update(&th.stats, &th.sum)
			a.logStepFailures(th, time.Now())
		}
		select {
		case <-a.stopPublish:
			return
		case <-tick.C:
		}
	}
}
