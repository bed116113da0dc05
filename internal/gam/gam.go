// Package gam holds the built-in GAMs (timer, waveform generator, IOGAM, text) that let streamerd run a demo, a bench or a test without user code.
//
// A GAM is MARTe2's Generic Application Module: the RT thread calls Execute on
// each GAM once per cycle, in order, and the brokers then copy every GAM's
// output arrays into datasource memory. Usage:
//
//  1. Build the GAMs at configuration time (NewTimer, NewWaveform,
//     NewIOGAM, NewText). Constructors allocate all output memory; nothing allocates
//     later.
//  2. Hand each Output to a broker (broker.BindBytes(signal, o.Type, o.Mem)).
//  3. On the RT thread, call Execute on every GAM each cycle, then run the brokers.
//
// Concurrency: a GAM and its output memory belong to the RT thread that
// executes it. Nothing here locks; reading an output from another goroutine
// while the RT thread runs is a data race.
package gam

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/rt"
)

// Output is one output array of a GAM: its name, element type and count, and
// its memory. Mem aliases the GAM's typed slice (len(Mem) = Elements ×
// Type.Size()), is aligned for Type, and keeps its address for the life of the
// GAM, so a broker may keep it. The GAM writes Mem during Execute; everyone
// else only reads it, between Execute calls, on the same thread.
type Output struct {
	Name     string
	Type     datasource.Type
	Elements int
	Mem      []byte
}

// GAM is a built-in GAM: a step of an rt.Thread (Execute runs once per
// cycle on the RT thread and must not allocate or block) with a name and
// output arrays. Outputs returns them; the slice and its memory are owned
// by the GAM and must not be modified by the caller.
type GAM interface {
	rt.Executable
	Name() string
	Outputs() []Output
}

// Compile-time checks that the built-in GAMs implement GAM.
var (
	_ GAM = (*Timer)(nil)
	_ GAM = (*Waveform)(nil)
	_ GAM = (*IOGAM)(nil)
	_ GAM = (*Text)(nil)
)

// newOutput allocates the memory of an output of n elements of type t,
// backed by uint64s so that it is aligned for every type.
func newOutput(name string, t datasource.Type, n int) Output {
	if !t.Valid() {
		panic(fmt.Sprintf("gam: output %q: invalid type %v", name, t))
	}
	size := n * t.Size()
	mem := bytesOf(make([]uint64, (size+7)/8))[:size:size]
	return Output{Name: name, Type: t, Elements: n, Mem: mem}
}

// ConfigError is one broken configuration rule of a GAM: it names the GAM,
// the parameter and the rule, so a config loader can point at the key.
type ConfigError struct {
	GAM       string
	Parameter string
	Rule      string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("gam %q: %s: %s", e.GAM, e.Parameter, e.Rule)
}

func paramError(gam, p, format string, args ...any) *ConfigError {
	return &ConfigError{GAM: gam, Parameter: p, Rule: fmt.Sprintf(format, args...)}
}
