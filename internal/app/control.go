package app

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/clip"
)

func (a *App) serveForce(w http.ResponseWriter, r *http.Request) {
	st, err := a.Force(r.FormValue("signal"), r.FormValue("value"))
	if err != nil {
		a.controlError(w, err)
		return
	}
	fmt.Fprintf(w, "forced %s = %s\n", st.Signal, st.Value)
	if st.Note != "" {
		fmt.Fprintf(w, "note: %s\n", st.Note)
	}
}

func (a *App) serveRelease(w http.ResponseWriter, r *http.Request) {
	target := r.FormValue("signal")
	if err := a.Release(target); err != nil {
		a.controlError(w, err)
		return
	}
	fmt.Fprintf(w, "released %s\n", target)
}

func (a *App) serveDegrade(w http.ResponseWriter, r *http.Request) {
	ds, key := r.FormValue("datasource"), r.FormValue("key")
	applied, err := a.Degrade(ds, key, r.FormValue("value"))
	if err != nil {
		a.controlError(w, err)
		return
	}
	fmt.Fprintf(w, "%s: %s = %s\n", ds, key, applied)
}

// controlError answers a control request that failed: 503 while the
// daemon stops (its datasources close under the request), else 400 with
// what was wrong with it.
func (a *App) controlError(w http.ResponseWriter, err error) {
	if a.stopping.Load() || errors.Is(err, datasource.ErrClosed) {
		http.Error(w, "streamerd is stopping: no more control", http.StatusServiceUnavailable)
		return
	}
	http.Error(w, err.Error(), http.StatusBadRequest)
}

// lookupSignal resolves "DataSource.Signal" (the datasource name has no
// dot; the signal name is the rest).
func (a *App) lookupSignal(target string) (*source, int, error) {
	dsName, sigName, ok := strings.Cut(target, ".")
	if !ok {
		return nil, 0, fmt.Errorf("signal %s: want DataSource.Signal", clip.Quote(target, maxQuotedInput))
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
		return nil, 0, fmt.Errorf("datasource %q has no signal %s", dsName, clip.Quote(sigName, maxQuotedInput))
	}
	return nil, 0, fmt.Errorf("no datasource %s", clip.Quote(dsName, maxQuotedInput))
}

// Force makes signal "DataSource.Signal" hold value until released. value
// is one number for every element or a comma-separated list of one per
// element, in base 10, parsed for the signal's type (range-checked; see
// parseValue). It returns the value as applied: read back from what signal
// memory holds, and for a quantised signal, the elements outside the
// quantisation range, which the wire clamps. A value outside that range is
// applied, so the memory and a client of the unquantised value see it.
func (a *App) Force(target, value string) (ForceStatus, error) {
	s, i, err := a.lookupSignal(target)
	if err != nil {
		return ForceStatus{}, err
	}
	if selfSynchronised(s.ds) {
		return ForceStatus{}, fmt.Errorf("force %s: datasource %q (%s) plays a recording: its signals are the recording's", target, s.cfg.Name, s.cfg.Class)
	}
	sig := &s.ds.Signals()[i]
	if value == "" {
		return ForceStatus{}, fmt.Errorf("force %s: no value: give value=V", target)
	}
	b, err := parseValue(sig, value)
	if err != nil {
		return ForceStatus{}, fmt.Errorf("force %s: %w", target, err)
	}
	dst, err := s.ds.GetSignalMemoryBuffer(i)
	if err != nil {
		return ForceStatus{}, fmt.Errorf("force %s: %w", target, err)
	}
	s.forces.Force(i, dst, b)
	st := forceStatus(s.cfg.Name, sig, b)
	a.events.add(Event{Time: time.Now(), Kind: "force", Target: target, Value: clip.Prefix(st.Value, maxEventValue)})
	a.log.Info("signal forced", "signal", target, "value", st.Value)
	if st.Note != "" {
		a.log.Warn("forced value clamped on the wire", "signal", target, "note", st.Note)
	}
	return st, nil
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

// Degrade sets an RD100S degradation parameter from its text (numbers in
// base 10, see rd100s.Encoder.Set) and returns the value applied,
// as the datasource reads it back.
func (a *App) Degrade(dsName, key, value string) (string, error) {
	for _, s := range a.sources {
		if s.cfg.Name != dsName {
			continue
		}
		d, ok := s.ds.(interface{ Set(key, value string) error })
		r, readable := internalsOf(s.ds).(interface {
			Degradation(key string) (string, error)
		})
		if !ok || !readable {
			return "", fmt.Errorf("datasource %q (%s) has no degradations", dsName, s.cfg.Class)
		}
		if len(key) > maxDegradeValue {
			return "", fmt.Errorf("unknown degradation %s", clip.Quote(key, maxQuotedInput))
		}
		if len(value) > maxDegradeValue {
			return "", fmt.Errorf("%s: value of %d bytes; at most %d", clip.Quote(key, maxQuotedInput), len(value), maxDegradeValue)
		}
		if !plainDecimal(value) {
			return "", fmt.Errorf("%s: %s: numbers are base 10 (no 0x, 0b, 0o, _ or hexadecimal floats)", clip.Quote(key, maxQuotedInput), clip.Quote(value, maxQuotedInput))
		}
		if err := d.Set(key, value); err != nil {
			return "", err
		}
		if v, err := r.Degradation(key); err == nil {
			return v, nil
		}
		return "applied", nil // a one-shot action such as restart
	}
	return "", fmt.Errorf("no datasource %s", clip.Quote(dsName, maxQuotedInput))
}

// maxDegradeValue bounds a /degrade key and value: a name, a number, a
// duration or a word.
const maxDegradeValue = 64

// plainDecimal reports whether s, a degradation value (a number, a Go
// duration such as "50ms", or a word such as "on"), carries no base prefix
// (0x, 0b, 0o), no underscore and no hexadecimal float, all of which
// strconv would read with another meaning or accept where base 10 is
// documented.
func plainDecimal(s string) bool {
	if strings.ContainsRune(s, '_') {
		return false
	}
	t := strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "+-"))
	return !(strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0o"))
}
