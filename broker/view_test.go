package broker

import (
	"unsafe"

	"github.com/streamerd/streamerd/datasource"
)

// viewOf returns b as a []T, aliasing b: how the tests read signal memory.
func viewOf[T datasource.Number](b []byte) []T {
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}
