// Package force holds the values an operator forced on signals of a datasource, which win over the GAMs' outputs until released.
package force

import (
	"sync"
	"sync/atomic"

	"github.com/streamerd/streamerd/datasource"
)

// Forces holds the values an operator forced on signals of one datasource.
// A forced value wins over the GAM's output until it is released: the
// datasource Wrap returns writes it over signal memory at the start of its
// Synchronise, after the broker's copies.
//
// Force and Release may be called from any goroutine (they allocate a new
// immutable table and publish it with one atomic store); Synchronise runs
// on the RT thread and only loads that pointer, so the RT thread never
// waits for the operator.
type Forces struct {
	mu    sync.Mutex // serialises writers
	table atomic.Pointer[forceTable]
}

type forceTable struct {
	entries []forceEntry
}

type forceEntry struct {
	signal int
	dst    []byte // where to write, in signal memory
	value  []byte
}

// Force sets signal (its index, and its bytes in signal memory) to value,
// which must be exactly len(dst) bytes; it replaces an earlier force.
func (f *Forces) Force(signal int, dst, value []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	old := f.table.Load()
	nt := &forceTable{}
	if old != nil {
		for _, e := range old.entries {
			if e.signal != signal {
				nt.entries = append(nt.entries, e)
			}
		}
	}
	nt.entries = append(nt.entries, forceEntry{signal: signal, dst: dst, value: append([]byte(nil), value...)})
	f.table.Store(nt)
}

// Release ends the force on signal and reports whether there was one.
func (f *Forces) Release(signal int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	old := f.table.Load()
	if old == nil {
		return false
	}
	nt := &forceTable{}
	found := false
	for _, e := range old.entries {
		if e.signal == signal {
			found = true
			continue
		}
		nt.entries = append(nt.entries, e)
	}
	if len(nt.entries) == 0 {
		nt = nil
	}
	f.table.Store(nt)
	return found
}

// Forced returns the indices of the forced signals and their values.
func (f *Forces) Forced() map[int][]byte {
	t := f.table.Load()
	m := make(map[int][]byte)
	if t != nil {
		for _, e := range t.entries {
			m[e.signal] = e.value
		}
	}
	return m
}

// apply writes every forced value into signal memory. It does not allocate.
func (f *Forces) apply() {
	t := f.table.Load()
	if t == nil {
		return
	}
	for i := range t.entries {
		e := &t.entries[i]
		copy(e.dst, e.value)
	}
}

// Wrap returns ds with a Synchronise that writes the forced values over
// signal memory, then calls ds's: the datasource a broker is built on, so
// that its copies come first. It does not allocate.
func (f *Forces) Wrap(ds datasource.DataSource) datasource.DataSource {
	return forced{DataSource: ds, f: f}
}

// forced is a DataSource whose Synchronise applies its Forces first.
type forced struct {
	datasource.DataSource
	f *Forces
}

func (d forced) Synchronise() error {
	d.f.apply()
	return d.DataSource.Synchronise()
}
