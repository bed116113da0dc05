package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/valyala/bytebufferpool"
)

// startHTTP listens on App.HTTPAddress (nothing when it is empty) and
// serves:
//
//	GET  /metrics                          Prometheus text
//	GET  /status                           JSON: threads, datasources, forces, events
//	POST /force?signal=DS.Signal&value=V   force a signal (V: one value for every element, or a comma list)
//	POST /release?signal=DS.Signal         release it
//	POST /degrade?datasource=DS&key=K&value=V   RD100S degradations (see docs/config.md)
func (a *App) startHTTP() error {
	addr := a.file.App.HTTPAddress
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("HTTP listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", a.serveMetrics)
	mux.HandleFunc("GET /status", a.serveStatus)
	mux.HandleFunc("POST /force", a.serveForce)
	mux.HandleFunc("POST /release", a.serveRelease)
	mux.HandleFunc("POST /degrade", a.serveDegrade)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "streamerd\n\nGET  /metrics\nGET  /status\nPOST /force?signal=DataSource.Signal&value=V\nPOST /release?signal=DataSource.Signal\nPOST /degrade?datasource=DS&key=K&value=V\n")
	})
	a.httpLn = ln
	a.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go a.httpSrv.Serve(ln)
	a.log.Info("HTTP listening", "address", ln.Addr().String())
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

func (a *App) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	bb := bytebufferpool.Get()
	defer bytebufferpool.Put(bb)
	a.ms.WritePrometheus(bb)
	metrics.WriteProcessMetrics(bb)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.Write(bb.B)
}

// Status is the document served at /status.
type Status struct {
	Threads     []ThreadStatus `json:"threads"`
	DataSources []any          `json:"datasources"`
	Forces      []ForceStatus  `json:"forces"`
	Events      []Event        `json:"events"`
	Timings     *TimingsStatus `json:"timings,omitempty"`
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

// ForceStatus is one forced signal in /status.
type ForceStatus struct {
	Signal string `json:"signal"`
	Value  string `json:"value"`
}

// Status returns the application's status.
func (a *App) Status() Status {
	var st Status
	for _, th := range a.threads {
		s := th.rt.Stats()
		ts := ThreadStatus{
			Name: s.Name, Running: s.Running, CPUMask: s.Affinity.String(), PeriodUs: us(s.Period),
			Cycles: s.Cycles, Overruns: s.Overruns, MissedPeriods: s.MissedPeriods, Failures: s.Failures,
			LastCycleUs: us(s.LastCycle), MaxLatencyUs: us(s.MaxLatency),
		}
		if err := s.Err(); err != nil {
			ts.LastError = err.Error()
		}
		st.Threads = append(st.Threads, ts)
	}
	for _, s := range a.sources {
		st.DataSources = append(st.DataSources, statusOf(s.ds))
		sigs := s.ds.Signals()
		for idx, v := range s.forces.Forced() {
			st.Forces = append(st.Forces, ForceStatus{Signal: s.cfg.Name + "." + sigs[idx].Name, Value: formatValue(&sigs[idx], v)})
		}
	}
	st.Events = a.events.recent()
	st.Timings = a.timings.status()
	return st
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func (a *App) serveStatus(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(a.Status())
}

func (a *App) serveForce(w http.ResponseWriter, r *http.Request) {
	target, value := r.FormValue("signal"), r.FormValue("value")
	if err := a.Force(target, value); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "forced %s = %s\n", target, value)
}

func (a *App) serveRelease(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("signal")
	if err := a.Release(target); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "released %s\n", target)
}

func (a *App) serveDegrade(w http.ResponseWriter, r *http.Request) {
	ds, key, value := r.FormValue("datasource"), r.FormValue("key"), r.FormValue("value")
	if err := a.Degrade(ds, key, value); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "%s: %s = %s\n", ds, key, value)
}

// lookupSignal resolves "DataSource.Signal".
func (a *App) lookupSignal(target string) (*source, int, error) {
	dsName, sigName, ok := strings.Cut(target, ".")
	if !ok {
		return nil, 0, fmt.Errorf("signal %q: want DataSource.Signal", target)
	}
	for _, s := range a.sources {
		if s.cfg.Name != dsName {
			continue
		}
		for i, sig := range s.ds.Signals() {
			if sig.Name == sigName {
				return s, i, nil
			}
		}
		return nil, 0, fmt.Errorf("datasource %q has no signal %q", dsName, sigName)
	}
	return nil, 0, fmt.Errorf("no datasource %q", dsName)
}

// Force makes signal "DataSource.Signal" hold value until released. value
// is one number for every element or a comma-separated list of one per
// element, parsed for the signal's type (range-checked).
func (a *App) Force(target, value string) error {
	s, i, err := a.lookupSignal(target)
	if err != nil {
		return err
	}
	sig := &s.ds.Signals()[i]
	b, err := parseValue(sig, value)
	if err != nil {
		return fmt.Errorf("force %s: %w", target, err)
	}
	s.forces.Force(i, s.ds.GetSignalMemoryBuffer(i), b)
	a.events.add(Event{Time: time.Now(), Kind: "force", Target: target, Value: value})
	a.log.Info("signal forced", "signal", target, "value", value)
	return nil
}

// Release ends a force.
func (a *App) Release(target string) error {
	s, i, err := a.lookupSignal(target)
	if err != nil {
		return err
	}
	if !s.forces.Release(i) {
		return fmt.Errorf("release %s: not forced", target)
	}
	a.events.add(Event{Time: time.Now(), Kind: "release", Target: target})
	a.log.Info("signal released", "signal", target)
	return nil
}

// Degrade sets an RD100S degradation parameter.
func (a *App) Degrade(dsName, key, value string) error {
	for _, s := range a.sources {
		if s.cfg.Name != dsName {
			continue
		}
		d, ok := s.ds.(degrader)
		if !ok {
			return fmt.Errorf("datasource %q (%s) has no degradations", dsName, s.cfg.Class)
		}
		return d.Set(key, value)
	}
	return fmt.Errorf("no datasource %q", dsName)
}

// degrader is what an RD100S datasource offers the operator; it records
// its own events.
type degrader interface {
	Set(key, value string) error
}
