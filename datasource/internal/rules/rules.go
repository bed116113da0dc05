// Package rules holds the configuration rules every producer shares and the way a producer's Validate collects what its configuration breaks.
package rules

import (
	"errors"
	"fmt"
	"slices"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/rt/cpu"
)

// SignalError returns a *datasource.ConfigError for parameter p of signal i.
func SignalError(ds string, sigs []datasource.Signal, i int, p, format string, args ...any) *datasource.ConfigError {
	return &datasource.ConfigError{DataSource: ds, Signal: sigs[i].Name, Index: i, Parameter: p, Rule: fmt.Sprintf(format, args...)}
}

// ParamError returns a *datasource.ConfigError for a datasource-level parameter p.
func ParamError(ds, p, format string, args ...any) *datasource.ConfigError {
	return &datasource.ConfigError{DataSource: ds, Index: -1, Parameter: p, Rule: fmt.Sprintf(format, args...)}
}

// ConfigErrors collects the broken rules of one datasource's
// configuration as *datasource.ConfigError values, so a producer's Validate reports
// them all at once. The zero value of errs is ready; set DataSource and
// Signals first.
type ConfigErrors struct {
	DataSource string
	Signals    []datasource.Signal
	errs       []error
	names      map[string]int // Lookup's
}

// Param records a broken rule of datasource-level parameter p.
func (e *ConfigErrors) Param(p, format string, args ...any) {
	e.errs = append(e.errs, ParamError(e.DataSource, p, format, args...))
}

// Signal records a broken rule of parameter p of signal i.
func (e *ConfigErrors) Signal(i int, p, format string, args ...any) {
	e.errs = append(e.errs, SignalError(e.DataSource, e.Signals, i, p, format, args...))
}

// Add records err (a *datasource.ConfigError or a join of them); nil is ignored.
func (e *ConfigErrors) Add(err error) {
	if err != nil {
		e.errs = append(e.errs, err)
	}
}

// Failed reports whether an error was recorded for signal i.
func (e *ConfigErrors) Failed(i int) bool {
	var failed func(error) bool
	failed = func(err error) bool {
		if ce, ok := err.(*datasource.ConfigError); ok {
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

// ValidateSignals checks the rules every producer shares: a datasource
// name, at least one signal, names non-empty and unique, a valid type, and
// a consistent shape. It returns every broken rule joined (errors.Join of
// *datasource.ConfigError), or nil.
func ValidateSignals(ds string, sigs []datasource.Signal) error {
	var errs []error
	if ds == "" {
		errs = append(errs, ParamError(ds, "Name", "must not be empty: it names the datasource's metrics, log lines and errors"))
	}
	if len(sigs) == 0 {
		errs = append(errs, ParamError(ds, "Signals", "at least one signal is required"))
	}
	seen := make(map[string]int, len(sigs))
	for i := range sigs {
		s := &sigs[i]
		if s.Name == "" {
			errs = append(errs, SignalError(ds, sigs, i, "Name", "must not be empty"))
		} else if j, dup := seen[s.Name]; dup {
			errs = append(errs, SignalError(ds, sigs, i, "Name", "duplicates signal #%d; names must be unique", j))
		} else {
			seen[s.Name] = i
		}
		if !s.Type.Valid() {
			errs = append(errs, SignalError(ds, sigs, i, "Type", "invalid type %d", s.Type))
		}
		switch s.NumberOfDimensions {
		case 0:
			if s.NumberOfElements != 0 && s.NumberOfElements != 1 {
				errs = append(errs, SignalError(ds, sigs, i, "NumberOfElements", "a scalar (NumberOfDimensions = 0) has 1 element, got %d", s.NumberOfElements))
			}
		case 1:
			if s.NumberOfElements < 1 || s.NumberOfElements > datasource.MaxElements {
				errs = append(errs, SignalError(ds, sigs, i, "NumberOfElements", "must be 1..%d for a 1-D array, got %d", datasource.MaxElements, s.NumberOfElements))
			}
		case 2:
			switch {
			case s.Rows < 1 || s.Cols < 1 || s.Rows > datasource.MaxElements || s.Cols > datasource.MaxElements || s.Rows*s.Cols > datasource.MaxElements:
				errs = append(errs, SignalError(ds, sigs, i, "Rows/Cols", "a matrix needs Rows ≥ 1 and Cols ≥ 1 with at most %d elements, got %d×%d", datasource.MaxElements, s.Rows, s.Cols))
			case s.NumberOfElements != 0 && s.NumberOfElements != s.Rows*s.Cols:
				errs = append(errs, SignalError(ds, sigs, i, "NumberOfElements", "must equal Rows × Cols = %d, got %d", s.Rows*s.Cols, s.NumberOfElements))
			}
		default:
			errs = append(errs, SignalError(ds, sigs, i, "NumberOfDimensions", "must be 0, 1 or 2, got %d", s.NumberOfDimensions))
		}
	}
	return errors.Join(errs...)
}

// Names maps every signal name of sigs to its index (the first, should a
// name repeat), so a lookup by name costs O(1) after one O(n) pass.
func Names(sigs []datasource.Signal) map[string]int {
	m := make(map[string]int, len(sigs))
	for i := range sigs {
		if _, dup := m[sigs[i].Name]; !dup {
			m[sigs[i].Name] = i
		}
	}
	return m
}

// Lookup returns the index of the signal of e.Signals named name; the
// names are mapped once, at the first call.
func (e *ConfigErrors) Lookup(name string) (int, bool) {
	if e.names == nil {
		e.names = Names(e.Signals)
	}
	i, ok := e.names[name]
	return i, ok
}

// CheckAllocate returns the error AllocateMemory of datasource name
// returns once the memory is allocated, or nil.
func CheckAllocate(name string, allocated bool) error {
	if allocated {
		return fmt.Errorf("datasource %q: %w", name, datasource.ErrAllocatedTwice)
	}
	return nil
}

// CheckPrepare returns the error PrepareNextState of datasource name
// returns before AllocateMemory or once prepared, or nil.
func CheckPrepare(name string, allocated, prepared bool) error {
	switch {
	case !allocated:
		return fmt.Errorf("datasource %q: %w", name, datasource.ErrNotAllocated)
	case prepared:
		return fmt.Errorf("datasource %q: %w", name, datasource.ErrStarted)
	}
	return nil
}
