package flatenc

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// TestAppendRaw: hand-written datagrams in either order, a char8 field as
// it is in both.
func TestAppendRaw(t *testing.T) {
	l := Layout(t, "a:uint16,b:int8,c:float32,d:char8[3],e:int64")
	raw := []uint64{0x1234, 0xFFFFFFFFFFFFFF80, 0x3FC00000, 'x', 'y', 0, 0xFFFFFFFFFFFFFFF9}
	le := []byte{0x34, 0x12, 0x80, 0x00, 0x00, 0xC0, 0x3F, 'x', 'y', 0, 0xF9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	be := []byte{0x12, 0x34, 0x80, 0x3F, 0xC0, 0x00, 0x00, 'x', 'y', 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF9}
	if got := AppendRaw([]byte{0xAA}, l, raw, wire.Little); !bytes.Equal(got, append([]byte{0xAA}, le...)) {
		t.Errorf("little = % x\nwant     % x", got[1:], le)
	}
	if got := AppendRaw(nil, l, raw, wire.Big); !bytes.Equal(got, be) {
		t.Errorf("big = % x\nwant  % x", got, be)
	}
}

// TestAppendValuesRounds: AppendValues encodes through fromFloat64 and
// Decode reads the values back.
func TestAppendValuesRounds(t *testing.T) {
	l := Layout(t, "a:uint8,b:int16[2],c:float32,d:uint64")
	dg := AppendValues(nil, l, []float64{7, -3, 1000, 0.25, 1 << 40}, wire.Big)
	vals := make([]float64, l.TotalElements())
	if err := l.Decode(vals, dg, wire.Big); err != nil {
		t.Fatal(err)
	}
	if want := []float64{7, -3, 1000, 0.25, 1 << 40}; !slices.Equal(vals, want) {
		t.Errorf("AppendValues/Decode = %v, want %v", vals, want)
	}
}

// TestFromFloat64: AppendValues's conversion rounds and saturates integers
// and keeps the bits of floats.
func TestFromFloat64(t *testing.T) {
	cases := []struct {
		t    datasource.Type
		v    float64
		want uint64
	}{
		{datasource.Uint8, 300, 255}, {datasource.Uint8, -5, 0}, {datasource.Uint8, 2.5, 3}, {datasource.Uint8, 2.49, 2}, {datasource.Uint8, math.NaN(), 0},
		{datasource.Char8, 300, 255}, {datasource.Char8, 'x', 'x'},
		{datasource.Int8, -300, 0xFFFFFFFFFFFFFF80}, {datasource.Int8, 200, 127}, {datasource.Int8, -2.5, 0xFFFFFFFFFFFFFFFD},
		{datasource.Uint16, 1e9, 65535}, {datasource.Int16, -1e9, 0xFFFFFFFFFFFF8000},
		{datasource.Uint32, math.Inf(1), math.MaxUint32}, {datasource.Int32, math.Inf(-1), 0xFFFFFFFF80000000},
		{datasource.Uint64, 1e30, math.MaxUint64}, {datasource.Uint64, -1, 0}, {datasource.Uint64, 1 << 60, 1 << 60},
		{datasource.Int64, 1e30, math.MaxInt64}, {datasource.Int64, -1e30, 1 << 63}, {datasource.Int64, -7, 0xFFFFFFFFFFFFFFF9},
		{datasource.Float32, 1.5, 0x3FC00000}, {datasource.Float64, math.Pi, 0x400921FB54442D18},
	}
	for _, c := range cases {
		if got := fromFloat64(c.t, c.v); got != c.want {
			t.Errorf("fromFloat64(%v, %v) = %#x, want %#x", c.t, c.v, got, c.want)
		}
	}
}

// FuzzRoundTrip: a datagram of the layout's size re-encodes bit-exact from
// its raw elements, and written in the other order decodes to the same
// elements, every char8 field as it was.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		"Trigger:uint8,Ia:float32,Wave:float32[16]",
		"Counter:uint32,Label:char8[8],V:float32,D:float64,I:int16[3],U:uint64,S:int8",
	} {
		l := Layout(f, s)
		dg := make([]byte, l.Size)
		for k := range dg {
			dg[k] = byte(0x5B * (k + 1))
		}
		f.Add(s, dg, false)
		f.Add(s, dg, true)
	}
	f.Fuzz(func(t *testing.T, s string, dg []byte, big bool) {
		l, err := wire.ParseLayout(s)
		if err != nil {
			return
		}
		order, other := wire.Little, wire.Big
		if big {
			order, other = other, order
		}
		raw := make([]uint64, l.TotalElements())
		if l.DecodeRaw(raw, dg, order) != nil {
			return
		}
		if back := AppendRaw(nil, l, raw, order); !bytes.Equal(back, dg) {
			t.Fatalf("AppendRaw(DecodeRaw(dg)) differs:\n% x\n% x", back, dg)
		}
		swapped := AppendRaw(nil, l, raw, other)
		raw2 := make([]uint64, l.TotalElements())
		if err := l.DecodeRaw(raw2, swapped, other); err != nil || !slices.Equal(raw2, raw) {
			t.Fatalf("the other order decodes differently: %v", err)
		}
		for i, sig := range l.Signals {
			if sig.Type == datasource.Char8 && !bytes.Equal(l.Field(swapped, i), l.Field(dg, i)) {
				t.Fatalf("char8 signal %d swapped", i)
			}
		}
	})
}
