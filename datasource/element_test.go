package datasource

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestRawAndText reads one element of every type from memory in both byte
// orders, converts it and prints it.
func TestRawAndText(t *testing.T) {
	cases := []struct {
		t    Type
		v    float64
		raw  uint64
		text string
	}{
		{Uint8, 200, 200, "200"}, {Char8, 'x', 'x', "120"}, {Int8, -3, 0xFFFFFFFFFFFFFFFD, "-3"},
		{Uint16, 65535, 65535, "65535"}, {Int16, -32768, 0xFFFFFFFFFFFF8000, "-32768"},
		{Uint32, 4e9, 4e9, "4000000000"}, {Int32, -7, 0xFFFFFFFFFFFFFFF9, "-7"},
		{Uint64, 1 << 63, 1 << 63, "9223372036854775808"}, {Int64, -1, math.MaxUint64, "-1"},
		{Float32, 0.1, uint64(math.Float32bits(0.1)), "0.1"}, {Float64, 0.1, math.Float64bits(0.1), "0.1"},
	}
	for _, c := range cases {
		for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			b := make([]byte, 8)
			switch c.t.Size() {
			case 1:
				b[0] = byte(c.raw)
			case 2:
				o.PutUint16(b, uint16(c.raw))
			case 4:
				o.PutUint32(b, uint32(c.raw))
			case 8:
				o.PutUint64(b, c.raw)
			}
			if got := c.t.Raw(b, o); got != c.raw {
				t.Errorf("%v %v: Raw %#x, want %#x", c.t, o, got, c.raw)
			}
		}
		if got := c.t.Float64(c.raw); got != float64(float32(c.v)) && got != c.v {
			t.Errorf("%v: Float64(%#x) %v, want %v", c.t, c.raw, got, c.v)
		}
	}
}

// TestRawNoAllocs: reading an element allocates nothing, the byte order
// passed as an interface included.
func TestRawNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	var b [8]byte
	var sink uint64
	if n := testing.AllocsPerRun(1000, func() { sink += Int16.Raw(b[:], binary.NativeEndian) }); n != 0 {
		t.Errorf("Raw: %v allocations", n)
	}
}
