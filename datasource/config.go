package datasource

import (
	"errors"
	"fmt"
	"slices"

	"github.com/streamerd/streamerd/rt/cpu"
)

// ConfigError is a configuration rule broken by one parameter. It names the
// datasource, the signal (empty for a datasource-level parameter), the
// parameter and the rule, so a config loader can point at the key in its file.
type ConfigError struct {
	DataSource string
	Signal     string // empty for a datasource parameter
	Index      int    // signal index in declaration order, -1 for a datasource parameter
	Parameter  string
	Rule       string
}

func (e *ConfigError) Error() string {
	if e.Signal == "" && e.Index < 0 {
		return fmt.Sprintf("datasource %q: %s: %s", e.DataSource, e.Parameter, e.Rule)
	}
	name := e.Signal
	if name == "" {
		name = fmt.Sprintf("#%d", e.Index)
	}
	return fmt.Sprintf("datasource %q: signal %q: %s: %s", e.DataSource, name, e.Parameter, e.Rule)
}

// SignalError returns a ConfigError for parameter p of signal i.
func SignalError(ds string, sigs []Signal, i int, p, format string, args ...any) *ConfigError {
	return &ConfigError{DataSource: ds, Signal: sigs[i].Name, Index: i, Parameter: p, Rule: fmt.Sprintf(format, args...)}
}

// ParamError returns a ConfigError for a datasource-level parameter p.
func ParamError(ds, p, format string, args ...any) *ConfigError {
	return &ConfigError{DataSource: ds, Index: -1, Parameter: p, Rule: fmt.Sprintf(format, args...)}
}

// ConfigErrors collects the broken rules of one datasource's
// configuration as *ConfigError values, so a producer's Validate reports
// them all at once. The zero value of errs is ready; set DataSource and
// Signals first.
type ConfigErrors struct {
	DataSource string
	Signals    []Signal
	errs       []error
}

// Param records a broken rule of datasource-level parameter p.
func (e *ConfigErrors) Param(p, format string, args ...any) {
	e.errs = append(e.errs, ParamError(e.DataSource, p, format, args...))
}

// Signal records a broken rule of parameter p of signal i.
func (e *ConfigErrors) Signal(i int, p, format string, args ...any) {
	e.errs = append(e.errs, SignalError(e.DataSource, e.Signals, i, p, format, args...))
}

// Add records err (a *ConfigError or a join of them); nil is ignored.
func (e *ConfigErrors) Add(err error) {
	if err != nil {
		e.errs = append(e.errs, err)
	}
}

// Failed reports whether an error was recorded for signal i.
func (e *ConfigErrors) Failed(i int) bool {
	var failed func(error) bool
	failed = func(err error) bool {
		if ce, ok := err.(*ConfigError); ok {
			return ce.Index == i
		}
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			return slices.ContainsFunc(u.Unwrap(), failed)
		}
		return false
	}
	return slices.ContainsFunc(e.errs, failed)
}

// Priority checks the SCHED_FIFO priority of a producer's network or
// sender thread, key Priority for every producer: 0 leaves normal
// scheduling, 1..99 is SCHED_FIFO.
func (e *ConfigErrors) Priority(p int) {
	if err := cpu.ValidatePriority(p); err != nil {
		e.Param("Priority", "%v", err)
	}
}

// Len returns how many errors were recorded.
func (e *ConfigErrors) Len() int { return len(e.errs) }

// Err returns every recorded error joined, or nil.
func (e *ConfigErrors) Err() error { return errors.Join(e.errs...) }

// SetDefault sets *v to def when it holds its zero value: a producer's
// withDefaults, one field at a time.
func SetDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
