// Package broker copies GAM outputs into datasource memory and synchronises the datasource, on the RT thread.
package broker

import (
	"errors"
	"fmt"

	"github.com/streamerd/streamerd/datasource"
)

// Output binds one GAM output array to the datasource signal it feeds. Src is
// the GAM's memory as bytes (datasource.Bytes of a typed slice); it must stay
// valid and must not be resized while the broker runs.
type Output struct {
	Signal string
	Src    []byte
}

type copyEntry struct {
	dst, src []byte
}

// MemoryMapSynchronisedOutputBroker is MARTe2's broker of the same name: a
// copy table computed once, then on every Execute a copy per entry and one
// call to the datasource's Synchronise. Execute runs on the RT thread only.
type MemoryMapSynchronisedOutputBroker struct {
	name        string
	copies      []copyEntry
	forces      *Forces
	synchronise func() error
}

// NewMemoryMapSynchronisedOutputBroker builds the copy table for outputs into
// ds, whose memory must already be allocated. Every output must name a signal
// of ds and have exactly its byte size; a signal may be fed once. Signals fed
// by no output keep whatever their memory holds (zero at allocation), which is
// how a value written directly by the embedding code stays.
func NewMemoryMapSynchronisedOutputBroker(ds datasource.DataSource, outputs []Output) (*MemoryMapSynchronisedOutputBroker, error) {
	sigs := ds.Signals()
	index := make(map[string]int, len(sigs))
	for i := range sigs {
		index[sigs[i].Name] = i
	}
	fed := make([]bool, len(sigs))
	var errs []error
	b := &MemoryMapSynchronisedOutputBroker{name: ds.Name(), synchronise: ds.Synchronise}
	for _, o := range outputs {
		i, ok := index[o.Signal]
		if !ok {
			errs = append(errs, fmt.Errorf("broker for datasource %q: output %q names no signal of the datasource", ds.Name(), o.Signal))
			continue
		}
		if fed[i] {
			errs = append(errs, fmt.Errorf("broker for datasource %q: signal %q is fed by more than one output", ds.Name(), o.Signal))
			continue
		}
		fed[i] = true
		dst, err := ds.GetSignalMemoryBuffer(i)
		if err != nil {
			errs = append(errs, fmt.Errorf("broker for datasource %q: %w", ds.Name(), err))
			break
		}
		if len(o.Src) != len(dst) {
			errs = append(errs, fmt.Errorf("broker for datasource %q: signal %q is %d bytes (%s × %d) but its output is %d bytes",
				ds.Name(), o.Signal, len(dst), sigs[i].Type, sigs[i].Elements(), len(o.Src)))
			continue
		}
		b.copies = append(b.copies, copyEntry{dst: dst, src: o.Src})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return b, nil
}

// SetForces makes the broker apply f after its copies on every Execute.
// Call it before the RT thread starts.
func (b *MemoryMapSynchronisedOutputBroker) SetForces(f *Forces) { b.forces = f }

// Execute copies every output into datasource memory, writes the forced
// values over them, and calls Synchronise. It does not allocate.
func (b *MemoryMapSynchronisedOutputBroker) Execute() error {
	for i := range b.copies {
		c := &b.copies[i]
		copy(c.dst, c.src)
	}
	if b.forces != nil {
		b.forces.Apply()
	}
	return b.synchronise()
}
