package gam

import (
	"unsafe"

	"github.com/streamerd/streamerd/datasource"
)

// Values returns the elements of output o as a []T aliasing its memory, or
// nil when T is not the output's element type: the checked typed view a
// caller outside the GAM reads an output with.
func Values[T datasource.Number](o Output) []T {
	if datasource.TypeOf[T]() != o.Type {
		return nil
	}
	return view[T](o.Mem)
}

// view returns b as a []T of len(b)/sizeof(T) elements, aliasing b; b is
// an output's memory, which newOutput aligns for every type.
func view[T datasource.Number](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// bytesOf returns the memory of s as bytes, aliasing s.
func bytesOf[T datasource.Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
