package gam

import "fmt"

// IOGAM is MARTe2's IOGAM: each cycle it copies its inputs (typically outputs
// of earlier GAMs) byte for byte into its own outputs, which have the same
// names, types and sizes. It lets one value feed several datasources, or be
// sampled at a fixed point of the cycle.
type IOGAM struct {
	name    string
	inputs  [][]byte
	outputs []Output
}

// NewIOGAM returns an IOGAM mirroring inputs. The input memories are kept and
// read on every Execute, so they must stay valid for the life of the IOGAM.
// It panics if an input's Mem is not Elements × Type.Size() bytes, which the
// GAMs of this package never produce.
func NewIOGAM(name string, inputs []Output) *IOGAM {
	g := &IOGAM{name: name, inputs: make([][]byte, len(inputs)), outputs: make([]Output, len(inputs))}
	for i, in := range inputs {
		if !in.Type.Valid() || in.Elements < 1 || len(in.Mem) != in.Elements*in.Type.Size() {
			panic(fmt.Sprintf("gam: IOGAM %q: input %q: %d bytes for %v × %d", name, in.Name, len(in.Mem), in.Type, in.Elements))
		}
		g.inputs[i] = in.Mem
		g.outputs[i] = newOutput(in.Name, in.Type, in.Elements)
	}
	return g
}

// Name returns the GAM's name.
func (g *IOGAM) Name() string { return g.name }

// Execute copies every input into its output.
func (g *IOGAM) Execute() error {
	for i := range g.outputs {
		copy(g.outputs[i].Mem, g.inputs[i])
	}
	return nil
}

// Outputs returns the outputs, in input order.
func (g *IOGAM) Outputs() []Output { return g.outputs }
