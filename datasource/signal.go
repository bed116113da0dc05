package datasource

import "github.com/streamerd/streamerd/quant"

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

// MaxElements bounds the element count of one signal; it keeps the arithmetic
// of sizes far from overflow and is far above any datagram limit.
const MaxElements = 1 << 24
