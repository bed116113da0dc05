package gam

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource"
)

// Timer is MARTe2's timer GAM: it republishes the RT thread's cycle Counter
// and Time (µs since the thread started) as two uint32 scalar outputs named
// "Counter" and "Time", so they can be streamed like any other signal.
type Timer struct {
	name          string
	counter, time *uint32
	outputs       [2]Output
	c, t          []uint32
}

// NewTimer returns a Timer reading *counter and *timeUs, which the RT thread
// updates before it executes its GAMs; both must be non-nil and stay valid
// for the life of the Timer. Execute reads them without synchronisation, so
// they must be written by the thread that calls Execute.
func NewTimer(name string, counter, timeUs *uint32) *Timer {
	if counter == nil || timeUs == nil {
		panic(fmt.Sprintf("gam: timer %q: nil Counter or Time pointer", name))
	}
	g := &Timer{name: name, counter: counter, time: timeUs}
	g.outputs[0] = newOutput("Counter", datasource.Uint32, 1)
	g.outputs[1] = newOutput("Time", datasource.Uint32, 1)
	g.c = view[uint32](g.outputs[0].Mem)
	g.t = view[uint32](g.outputs[1].Mem)
	return g
}

// Name returns the GAM's name.
func (g *Timer) Name() string { return g.name }

// Execute copies the thread's Counter and Time into the outputs.
func (g *Timer) Execute() error {
	g.c[0] = *g.counter
	g.t[0] = *g.time
	return nil
}

// Outputs returns Counter (uint32) and Time (uint32, µs), in that order.
func (g *Timer) Outputs() []Output { return g.outputs[:] }

// Bind points the Timer at another thread's Counter and Time. An
// application builds its GAMs before the RT thread that owns the counters,
// so it creates each Timer on placeholders and binds it once the thread
// exists, before the thread starts; the output memory does not change.
func (g *Timer) Bind(counter, timeUs *uint32) {
	if counter == nil || timeUs == nil {
		panic(fmt.Sprintf("gam: timer %q: nil Counter or Time pointer", g.name))
	}
	g.counter, g.time = counter, timeUs
}
