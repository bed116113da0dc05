package cli

import (
	"strconv"

	"github.com/streamerd/streamerd/datasource"
)

// AppendRaw appends the text of raw bits of type t (datasource.Type.Raw's)
// to b: integers (and a char8 byte) exactly, floats in the shortest form
// that reads back to the same value at their own precision (NaN, +Inf,
// -Inf as strconv writes them). It allocates only to grow b.
func AppendRaw(b []byte, t datasource.Type, raw uint64) []byte {
	switch t {
	case datasource.Float32:
		return strconv.AppendFloat(b, t.Float64(raw), 'g', -1, 32)
	case datasource.Float64:
		return strconv.AppendFloat(b, t.Float64(raw), 'g', -1, 64)
	}
	if t.Signed() {
		return strconv.AppendInt(b, int64(raw), 10)
	}
	return strconv.AppendUint(b, raw, 10)
}
