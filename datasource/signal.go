package datasource

import (
	"errors"

	"github.com/streamerd/streamerd/quant"
)

// Signal describes one signal of a DataSource. The first block of fields is
// common to every producer; the second holds the UDPStreamer extras, which
// other producers leave at their zero values.
//
// Shape follows the UDPStreamer CONFIG record: a scalar has NumberOfDimensions 0
// and one element; a 1-D array has NumberOfDimensions 1 and NumberOfElements
// elements; a 2-D matrix has NumberOfDimensions 2, Rows × Cols elements, and
// NumberOfElements equal to that product (0 means "derive it").
type Signal struct {
	Name               string
	Type               Type
	NumberOfDimensions int
	NumberOfElements   int
	Rows, Cols         int // 2-D only
	Unit               string

	RangeMin, RangeMax float64
	QuantizedType      quant.WireType
	TimeMode           TimeMode
	TimeSignal         string
	SamplingRate       float64 // Hz
}

// Elements returns the number of elements of the signal (at least 1 for a
// valid signal).
func (s *Signal) Elements() int {
	switch s.NumberOfDimensions {
	case 0:
		return 1
	case 2:
		if s.NumberOfElements == 0 {
			return s.Rows * s.Cols
		}
	}
	return s.NumberOfElements
}

// ByteSize returns the size of the signal in signal memory.
func (s *Signal) ByteSize() int { return s.Elements() * s.Type.Size() }

// Shape returns rows and columns as the UDPStreamer CONFIG record carries
// them: 1×1 for a scalar, 1×N for a 1-D array, Rows×Cols for a matrix.
func (s *Signal) Shape() (rows, cols int) {
	switch s.NumberOfDimensions {
	case 0:
		return 1, 1
	case 1:
		return 1, s.NumberOfElements
	}
	return s.Rows, s.Cols
}

// MaxElements bounds the element count of one signal; it keeps the arithmetic
// of sizes far from overflow and is far above any datagram limit.
const MaxElements = 1 << 24

// ValidateSignals checks the rules every producer shares: at least one
// signal, names non-empty and unique, a valid type, and a consistent shape.
// It returns every broken rule joined (errors.Join of *ConfigError), or nil.
func ValidateSignals(ds string, sigs []Signal) error {
	var errs []error
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
			if s.NumberOfElements < 1 || s.NumberOfElements > MaxElements {
				errs = append(errs, SignalError(ds, sigs, i, "NumberOfElements", "must be 1..%d for a 1-D array, got %d", MaxElements, s.NumberOfElements))
			}
		case 2:
			switch {
			case s.Rows < 1 || s.Cols < 1 || s.Rows > MaxElements || s.Cols > MaxElements || s.Rows*s.Cols > MaxElements:
				errs = append(errs, SignalError(ds, sigs, i, "Rows/Cols", "a matrix needs Rows ≥ 1 and Cols ≥ 1 with at most %d elements, got %d×%d", MaxElements, s.Rows, s.Cols))
			case s.NumberOfElements != 0 && s.NumberOfElements != s.Rows*s.Cols:
				errs = append(errs, SignalError(ds, sigs, i, "NumberOfElements", "must equal Rows × Cols = %d, got %d", s.Rows*s.Cols, s.NumberOfElements))
			}
		default:
			errs = append(errs, SignalError(ds, sigs, i, "NumberOfDimensions", "must be 0, 1 or 2, got %d", s.NumberOfDimensions))
		}
	}
	return errors.Join(errs...)
}

// Index returns the index of the signal named name, or -1.
func Index(sigs []Signal, name string) int {
	for i := range sigs {
		if sigs[i].Name == name {
			return i
		}
	}
	return -1
}
