package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/valyala/bytebufferpool"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/internal/httpguard"
)

// startHTTP listens on App.HTTPAddress (nothing when it is empty) and
// serves:
//
//	GET  /metrics                          Prometheus text
//	GET  /status                           JSON: threads, datasources, forces, events
//	POST /force?signal=DS.Signal&value=V   force a signal (V: one value for every element, or a comma list)
//	POST /release?signal=DS.Signal         release it
//	POST /degrade?datasource=DS&key=K&value=V   RD100S degradations (see docs/config.md)
//
// Every connection and request is bounded before a handler sees it
// (httpguard.go, internal/httpguard): connections per client address, the
// host names answered (App.HTTPAllowedHosts), cross-origin requests to the
// control endpoints. With a token (App.HTTPTokenFile) every endpoint
// needs it; without one, the control endpoints are served only on a
// loopback address unless App.HTTPInsecureControl says otherwise.
func (a *App) startHTTP() error {
	addr := a.file.App.HTTPAddress
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("HTTP listen on %s: %w", addr, err)
	}
	b := httpBounds
	g := a.guard
	loopback := false
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		loopback = ta.IP.IsLoopback()
	}
	if !loopback && g.token == nil && !a.file.App.HTTPInsecureControl {
		g.controlOff = "forbidden: control endpoints are off, as HTTP is not on a loopback address and has no token (App.HTTPTokenFile)"
	}
	if msg := config.HTTPExposure(&a.file.App, loopback); msg != "" {
		a.log.Warn(msg, "address", ln.Addr().String())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", g.handle(classRead, a.serveMetrics))
	mux.HandleFunc("GET /status", g.handle(classRead, a.serveStatus))
	mux.HandleFunc("POST /force", g.handle(classControl, a.serveForce))
	mux.HandleFunc("POST /release", g.handle(classControl, a.serveRelease))
	mux.HandleFunc("POST /degrade", g.handle(classControl, a.serveDegrade))
	mux.HandleFunc("GET /{$}", g.handle(classRead, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "streamerd\n\nGET  /metrics\nGET  /status\nPOST /force?signal=DataSource.Signal&value=V\nPOST /release?signal=DataSource.Signal\nPOST /degrade?datasource=DS&key=K&value=V\n")
	}))
	hosts := httpguard.NewHosts(addr, a.file.App.HTTPAllowedHosts, "App.HTTPAllowedHosts", httpRefused(a.ms, "host"))
	a.httpSrv = &http.Server{
		Handler: hosts.Check(mux), ReadHeaderTimeout: b.readHeader, ReadTimeout: b.read, WriteTimeout: b.write,
		IdleTimeout: b.idle, MaxHeaderBytes: b.maxHeader,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelDebug),
	}
	lim := httpguard.Listen(ln, httpguard.ListenerOptions{
		MaxConns: b.maxConns, MaxPerClient: b.maxPerClient, EvictAfter: b.evictAfter, Name: "HTTP", Log: a.log,
		Refused: a.ms.GetOrCreateCounter("streamerd_http_connections_refused_total"),
		Evicted: a.ms.GetOrCreateCounter("streamerd_http_connections_evicted_total"),
	})
	a.httpLn = lim
	go lim.Serve(a.httpSrv)
	a.log.Info("HTTP listening", "address", ln.Addr().String(), "token", g.token != nil, "control", g.controlOff == "")
	return nil
}

func (a *App) stopHTTP() {
	if a.httpSrv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if a.httpSrv.Shutdown(ctx) != nil {
		a.httpSrv.Close()
	}
	a.httpSrv = nil
}

// metricHelp is the one-line help of every family this package registers
// or writes; datasource has the producers'.
var metricHelp = joinHelp(threadHelp, timingHelp, httpHelp, runtimeHelp, map[string]string{
	forensics.LateCyclesMetric:    forensics.LateCyclesHelp,
	forensics.SkippedCyclesMetric: forensics.SkippedCyclesHelp,
	forensics.MissedPeriodsMetric: forensics.MissedPeriodsHelp,
})

// joinHelp returns one table of the tables' entries.
func joinHelp(tables ...map[string]string) map[string]string {
	all := map[string]string{}
	for _, t := range tables {
		maps.Copy(all, t)
	}
	return all
}

// serveMetrics writes the set and the runtime metrics, every # HELP line
// filled in (datasource.WritePrometheus), into a pooled buffer: a slow
// client holds no lock.
func (a *App) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	bb := bytebufferpool.Get()
	defer bytebufferpool.Put(bb)
	datasource.WritePrometheus(bb, a.ms.WritePrometheus, metricHelp)
	a.procMetrics.write(bb)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.Write(bb.B)
}

// Status is the document served at /status; docs/status.md explains
// every field.
type Status struct {
	Threads     []ThreadStatus    `json:"threads"`
	DataSources []any             `json:"datasources"`
	Forces      []ForceStatus     `json:"forces"`
	Events      []Event           `json:"events"`
	Timings     *TimingsStatus    `json:"timings,omitempty"`
	LateCycles  *forensics.Status `json:"late_cycles,omitempty"`
}

// ThreadStatus is one RT thread in /status.
type ThreadStatus struct {
	Name          string  `json:"name"`
	Running       bool    `json:"running"`
	CPUMask       string  `json:"affinity"`
	PeriodUs      float64 `json:"period_us"`
	Cycles        uint64  `json:"cycles"`
	Overruns      uint64  `json:"overruns"`
	MissedPeriods uint64  `json:"missed_periods"`
	Failures      uint64  `json:"failures"`
	LastCycleUs   float64 `json:"last_cycle_us"`
	MaxLatencyUs  float64 `json:"max_wakeup_latency_us"`
	LastError     string  `json:"last_error,omitempty"`
}

// ForceStatus is one forced signal in /status: the value signal memory
// holds (at most about 256 bytes of text), and for a quantised signal the
// elements the wire cannot carry and what the client receives instead.
type ForceStatus struct {
	Signal          string `json:"signal"`
	Value           string `json:"value"`
	ClampedElements int    `json:"clamped_elements,omitempty"`
	Note            string `json:"note,omitempty"`
}

func forceStatus(ds string, sig *datasource.Signal, b []byte) ForceStatus {
	clamped, note := wireClamp(sig, b)
	return ForceStatus{Signal: ds + "." + sig.Name, Value: formatValue(sig, b, maxShownValue), ClampedElements: clamped, Note: note}
}

// Status returns the application's status. Its lists are empty, never
// nil, so the JSON has [] rather than null (docs/status.md).
func (a *App) Status() Status {
	st := Status{Threads: []ThreadStatus{}, DataSources: []any{}, Forces: []ForceStatus{}}
	for i, th := range a.threads {
		s := th.rt.Stats()
		var sum cycles.Summary
		a.timings.readSummary(i, &sum)
		ts := ThreadStatus{
			Name: th.rt.Name(), Running: s.Running, CPUMask: th.rt.Affinity().String(), PeriodUs: us(th.rt.Period()),
			Cycles: s.Cycles, Overruns: s.Overruns, MissedPeriods: s.MissedPeriods, Failures: s.Failures,
			LastCycleUs: us(sum.LastCycle), MaxLatencyUs: us(sum.MaxLatency),
		}
		if err := s.Err(); err != nil {
			ts.LastError = err.Error()
		}
		st.Threads = append(st.Threads, ts)
	}
	for _, s := range a.sources {
		st.DataSources = append(st.DataSources, statusOf(s.ds))
		sigs := s.ds.Signals()
		forced := s.forces.Forced()
		for _, idx := range slices.Sorted(maps.Keys(forced)) { // in signal order, not the map's
			st.Forces = append(st.Forces, forceStatus(s.cfg.Name, &sigs[idx], forced[idx]))
		}
	}
	st.Events = a.events.recent()
	st.Timings = a.timings.status()
	st.LateCycles = a.late.Status()
	return st
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func (a *App) serveStatus(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // step names read "Timer.Counter->Streamer.Counter", as docs/status.md shows them
	enc.Encode(a.Status())
}
