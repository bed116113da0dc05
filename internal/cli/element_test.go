package cli

import (
	"math"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

func TestAppendRaw(t *testing.T) {
	for _, c := range []struct {
		t    datasource.Type
		raw  uint64
		text string
	}{
		{datasource.Uint8, 200, "200"}, {datasource.Char8, 'x', "120"}, {datasource.Int8, 0xFFFFFFFFFFFFFFFD, "-3"},
		{datasource.Uint16, 65535, "65535"}, {datasource.Int16, 0xFFFFFFFFFFFF8000, "-32768"},
		{datasource.Uint32, 4e9, "4000000000"}, {datasource.Int32, 0xFFFFFFFFFFFFFFF9, "-7"},
		{datasource.Uint64, 1 << 63, "9223372036854775808"}, {datasource.Int64, math.MaxUint64, "-1"},
		{datasource.Float32, uint64(math.Float32bits(0.1)), "0.1"}, {datasource.Float64, math.Float64bits(0.1), "0.1"},
		{datasource.Float64, math.Float64bits(math.Inf(-1)), "-Inf"},
	} {
		if got := string(AppendRaw(nil, c.t, c.raw)); got != c.text {
			t.Errorf("%v: AppendRaw %q, want %q", c.t, got, c.text)
		}
	}
}
