package gam

import (
	"strings"

	"github.com/streamerd/streamerd/datasource"
)

// Text writes a fixed text into a char8 output: the MARTe2 ConstantGAM
// with a char8 Default. The text is written NUL-padded when the GAM is
// built; Execute has nothing to do.
type Text struct {
	name    string
	outputs [1]Output
}

// NewText returns a Text GAM whose output is char8[elements] holding text
// (its bytes, then NULs). The text must fit with its terminating NUL
// (len(text) < elements), as MARTe2's ConstantGAM keeps it, so a C receiver
// can treat the field as a string; and it must not contain a NUL, which
// would cut it short for every receiver. Errors are *ConfigError naming
// the GAM and the parameter.
func NewText(name, text string, elements int) (*Text, error) {
	if err := CheckText(name, text); err != nil {
		return nil, err
	}
	switch {
	case elements < 1 || elements > datasource.MaxElements:
		return nil, paramError(name, "Elements", "must be 1..%d, got %d", datasource.MaxElements, elements)
	case len(text) >= elements:
		return nil, paramError(name, "Text", "%d bytes do not fit a char8[%d] signal with the NUL that ends them (at most %d)", len(text), elements, elements-1)
	}
	g := &Text{name: name}
	g.outputs[0] = newOutput(name, datasource.Char8, elements)
	copy(g.outputs[0].Mem, text)
	return g, nil
}

// CheckText checks the text of the Text GAM name, whatever the signal it
// feeds: a config loader checks it before the application is built. The
// error is a *ConfigError.
func CheckText(name, text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return paramError(name, "Text", "must not contain a NUL byte (receivers end the text at the first NUL)")
	}
	return nil
}

// Name returns the GAM's name.
func (g *Text) Name() string { return g.name }

// Execute does nothing: the output holds the text from the start.
func (g *Text) Execute() error { return nil }

// Outputs returns the char8 output.
func (g *Text) Outputs() []Output { return g.outputs[:] }
