package datasource

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestFromFloat64(t *testing.T) {
	cases := []struct {
		t    Type
		v    float64
		want uint64
	}{
		{Uint8, 300, 255}, {Uint8, -5, 0}, {Uint8, 2.5, 3}, {Uint8, 2.49, 2}, {Uint8, math.NaN(), 0},
		{Int8, -300, 0xFFFFFFFFFFFFFF80}, {Int8, 200, 127}, {Int8, -2.5, 0xFFFFFFFFFFFFFFFD},
		{Uint16, 1e9, 65535}, {Int16, -1e9, 0xFFFFFFFFFFFF8000},
		{Uint32, math.Inf(1), math.MaxUint32}, {Int32, math.Inf(-1), 0xFFFFFFFF80000000},
		{Uint64, 1e30, math.MaxUint64}, {Uint64, -1, 0}, {Uint64, 1 << 60, 1 << 60},
		{Int64, 1e30, math.MaxInt64}, {Int64, -1e30, 1 << 63}, {Int64, -7, 0xFFFFFFFFFFFFFFF9},
		{Float32, 1.5, 0x3FC00000}, {Float64, math.Pi, 0x400921FB54442D18},
	}
	for _, c := range cases {
		if got := c.t.FromFloat64(c.v); got != c.want {
			t.Errorf("%v.FromFloat64(%v) = %#x, want %#x", c.t, c.v, got, c.want)
		}
	}
}

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
		if got := c.t.FromFloat64(c.v); got != c.raw {
			t.Errorf("%v: FromFloat64(%v) %#x, want %#x", c.t, c.v, got, c.raw)
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
