package gam

import (
	"fmt"
	"strings"
)

// Shape is the waveform a Waveform GAM generates. With u the phase in cycles
// reduced to [0, 1), A the Amplitude and O the Offset, the periodic shapes
// follow scipy.signal's conventions:
//
//	Sine      O + A·sin(2πu)
//	Square    O + A while u < DutyCycle, O − A after (scipy.signal.square)
//	Triangle  O − A at u = 0, rising to O + A at u = ½, falling back (scipy.signal.sawtooth, width ½)
//	Sawtooth  O − A at u = 0, rising linearly to O + A at u → 1 (scipy.signal.sawtooth)
//	Ramp      O + A·t with t in seconds: a slope of A per second, no period
//	Constant  O
//	Noise     uniform in [O − |A|, O + |A|], a fresh value per sample
type Shape uint8

// The shapes.
const (
	Sine Shape = iota
	Square
	Triangle
	Sawtooth
	Ramp
	Constant
	Noise
	numShapes
)

var shapeNames = [numShapes]string{"sine", "square", "triangle", "sawtooth", "ramp", "constant", "noise"}

// String returns the lower-case name of the shape.
func (s Shape) String() string {
	if !s.Valid() {
		return fmt.Sprintf("Shape(%d)", uint8(s))
	}
	return shapeNames[s]
}

// Valid reports whether s is one of the shapes.
func (s Shape) Valid() bool { return s < numShapes }

// ParseShape parses a shape name, ignoring case.
func ParseShape(s string) (Shape, error) {
	for i, n := range shapeNames {
		if strings.EqualFold(n, s) {
			return Shape(i), nil
		}
	}
	return 0, fmt.Errorf("unknown waveform shape %q (want one of %s)", s, strings.Join(shapeNames[:], ", "))
}

// MarshalText implements encoding.TextMarshaler.
func (s Shape) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("invalid waveform shape %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Shape) UnmarshalText(b []byte) error {
	v, err := ParseShape(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
