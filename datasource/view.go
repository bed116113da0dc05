package datasource

import "unsafe"

// Number is the set of Go element types a signal can have.
type Number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~float32 | ~float64
}

// TypeOf returns the signal Type of the Go type T.
func TypeOf[T Number]() Type {
	var z T
	switch any(z).(type) {
	case uint8:
		return Uint8
	case int8:
		return Int8
	case uint16:
		return Uint16
	case int16:
		return Int16
	case uint32:
		return Uint32
	case int32:
		return Int32
	case uint64:
		return Uint64
	case int64:
		return Int64
	case float32:
		return Float32
	case float64:
		return Float64
	}
	// A named type with one of the underlying types above: go by size and kind.
	return typeBySize[T]()
}

func typeBySize[T Number]() Type {
	var z T
	neg := z - 1 // wraps to max for unsigned, -1 for signed and floats
	frac := z + 1
	frac /= 2 // 0 for integers, 0.5 for floats
	switch unsafe.Sizeof(z) {
	case 1:
		if neg > 0 {
			return Uint8
		}
		return Int8
	case 2:
		if neg > 0 {
			return Uint16
		}
		return Int16
	case 4:
		if frac != 0 {
			return Float32
		}
		if neg > 0 {
			return Uint32
		}
		return Int32
	default:
		if frac != 0 {
			return Float64
		}
		if neg > 0 {
			return Uint64
		}
		return Int64
	}
}
