package cli

import (
	"strconv"

	"github.com/streamerd/streamerd/datasource"
)

// Dims returns the rows and columns of signal s as a UDPStreamer CONFIG
// record has them: 1×1 for a scalar, 1×N for a vector, Rows×Cols for a
// matrix.
func Dims(s *datasource.Signal) (rows, cols int) {
	switch s.NumberOfDimensions {
	case 0:
		return 1, 1
	case 2:
		return s.Rows, s.Cols
	}
	return 1, s.Elements()
}

// Shape describes the dimensions of signal s for display: "scalar", "[N]"
// for a vector of N elements or "[RxC]" for a matrix of R rows and C
// columns.
func Shape(s *datasource.Signal) string {
	rows, cols := Dims(s)
	switch s.NumberOfDimensions {
	case 0:
		return "scalar"
	case 1:
		return "[" + strconv.Itoa(cols) + "]"
	}
	return "[" + strconv.Itoa(rows) + "x" + strconv.Itoa(cols) + "]"
}
