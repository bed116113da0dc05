package broker

import (
	"unsafe"

	"github.com/streamerd/streamerd/datasource"
)

// bytesOf returns the memory of s as bytes, without copying; the result
// aliases s.
func bytesOf[T datasource.Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
