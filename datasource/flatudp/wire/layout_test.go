package wire

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

// handBuilt is a datagram written byte by byte, little-endian, one element
// per entry, with the values each element must decode to.
var handBuilt = struct {
	signals string
	elems   [][]byte  // little-endian bytes of each element
	raw     []uint64  // DecodeRaw's view
	vals    []float64 // Decode's view (NaN where raw is a NaN)
}{
	signals: "Trigger:uint8,Ia:float32,Wave:int16[3],Big:uint64,D:float64,S:int8,U16:uint16,I32:int32,U32:uint32,I64:int64,N:float64,V:float32[2]",
	elems: [][]byte{
		{0x01},                                   // Trigger = 1
		{0x00, 0x00, 0xC0, 0x3F},                 // Ia = 1.5
		{0xFE, 0xFF}, {0x00, 0x00}, {0x2C, 0x01}, // Wave = -2, 0, 300
		{0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE}, // Big = 0xFEDCBA9876543210
		{0x18, 0x2D, 0x44, 0x54, 0xFB, 0x21, 0x09, 0x40}, // D = pi
		{0x80},                                             // S = -128
		{0xFF, 0xFF},                                       // U16 = 65535
		{0x60, 0x79, 0xFE, 0xFF},                           // I32 = -100000
		{0x00, 0x28, 0x6B, 0xEE},                           // U32 = 4000000000
		{0x01, 0, 0, 0, 0, 0, 0, 0x80},                     // I64 = MinInt64+1
		{0x23, 0x01, 0, 0, 0, 0, 0xF8, 0x7F},               // N = NaN with payload 0x123
		{0x00, 0x00, 0x80, 0xBF}, {0x00, 0x00, 0x80, 0x7F}, // V = -1, +Inf
	},
	raw: []uint64{
		1, 0x3FC00000, 0xFFFFFFFFFFFFFFFE, 0, 300, 0xFEDCBA9876543210, 0x400921FB54442D18,
		0xFFFFFFFFFFFFFF80, 0xFFFF, 0xFFFFFFFFFFFE7960, 4000000000, 0x8000000000000001,
		0x7FF8000000000123, 0xBF800000, 0x7F800000,
	},
	vals: []float64{
		1, 1.5, -2, 0, 300, float64(uint64(0xFEDCBA9876543210)), math.Pi,
		-128, 65535, -100000, 4000000000, math.MinInt64 + 1, math.NaN(), -1, math.Inf(1),
	},
}

func handDatagram(order ByteOrder) []byte {
	var b []byte
	for _, e := range handBuilt.elems {
		if order == Big {
			b = append(b, reversed(e)...)
		} else {
			b = append(b, e...)
		}
	}
	return b
}

func reversed(e []byte) []byte {
	r := slices.Clone(e)
	slices.Reverse(r)
	return r
}

func mustLayout(tb testing.TB, s string) *Layout {
	tb.Helper()
	l, err := ParseLayout(s)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func sameFloat(a, b float64) bool { return a == b || (a != a && b != b) }

func TestLayout(t *testing.T) {
	l := mustLayout(t, "Trigger:uint8,Ia:float32,Wave:float32[16],D:float64")
	if want := []int{0, 1, 5, 69}; !slices.Equal(l.offsetsOf, want) {
		t.Errorf("Offsets = %v, want %v", l.offsetsOf, want)
	}
	if l.Size != 77 || l.TotalElements() != 19 {
		t.Errorf("Size %d elements %d, want 77 and 19", l.Size, l.TotalElements())
	}
	for k, want := range map[int]datasource.Type{0: datasource.Uint8, 1: datasource.Float32, 2: datasource.Float32, 17: datasource.Float32, 18: datasource.Float64, 19: invalidType} {
		if got := elementType(l, k); got != want {
			t.Errorf("ElementType(%d) = %v, want %v", k, got, want)
		}
	}
	if _, err := NewLayout(nil); err == nil {
		t.Error("NewLayout(nil) succeeded")
	}
	var se *signalError
	if _, err := ParseLayout("a:uint8,a:uint8"); !errors.As(err, &se) {
		t.Errorf("ParseLayout of a repeated name: %v, want a *signalError", err)
	}
	// The layout keeps its own copy of the signals.
	sigs := []Signal{{"a", datasource.Uint16, 2, false}}
	l2, _ := NewLayout(sigs)
	sigs[0].Count = 100
	if l2.Size != 4 || l2.Signals[0].Count != 2 {
		t.Errorf("layout follows the caller's slice: %+v", l2)
	}
}

func TestDecodeHandBuilt(t *testing.T) {
	l := mustLayout(t, handBuilt.signals)
	if l.TotalElements() != len(handBuilt.raw) || l.TotalElements() != len(handBuilt.vals) {
		t.Fatalf("table has %d/%d values for %d elements", len(handBuilt.raw), len(handBuilt.vals), l.TotalElements())
	}
	le, be := handDatagram(Little), handDatagram(Big)
	if len(le) != l.Size {
		t.Fatalf("hand-built datagram is %d bytes, layout %d", len(le), l.Size)
	}
	for _, c := range []struct {
		order ByteOrder
		dg    []byte
	}{{Little, le}, {Big, be}} {
		raw := make([]uint64, l.TotalElements())
		if err := l.DecodeRaw(raw, c.dg, c.order); err != nil {
			t.Fatal(err)
		}
		for k, want := range handBuilt.raw {
			if raw[k] != want {
				t.Errorf("%v: raw[%d] = %#x, want %#x", c.order, k, raw[k], want)
			}
		}
		vals := make([]float64, l.TotalElements())
		if err := l.Decode(vals, c.dg, c.order); err != nil {
			t.Fatal(err)
		}
		for k, want := range handBuilt.vals {
			if !sameFloat(vals[k], want) {
				t.Errorf("%v: vals[%d] = %v, want %v", c.order, k, vals[k], want)
			}
			if got := elementType(l, k).Float64(raw[k]); !sameFloat(got, vals[k]) {
				t.Errorf("%v: Float64(raw[%d]) = %v, Decode %v", c.order, k, got, vals[k])
			}
		}
	}
	// The uint64 and the float64 NaN survive bit-exact.
	raw := make([]uint64, l.TotalElements())
	l.DecodeRaw(raw, le, Little)
	if raw[5] != 0xFEDCBA9876543210 || raw[12] != 0x7FF8000000000123 {
		t.Errorf("bit-exact: %#x %#x", raw[5], raw[12])
	}
	// Decoding with the wrong order gives other values (the test has teeth).
	l.DecodeRaw(raw, le, Big)
	if raw[1] == handBuilt.raw[1] {
		t.Error("byte order ignored")
	}
}

func TestDecodeErrors(t *testing.T) {
	l := mustLayout(t, "Trigger:uint8,Ia:float32,Wave:float32[16]")
	vals := make([]float64, l.TotalElements())
	raw := make([]uint64, l.TotalElements())
	for _, n := range []int{0, 1, l.Size - 1, l.Size + 1, 65507} {
		err := l.Decode(vals, make([]byte, n), Little)
		if err != ErrSize {
			t.Errorf("Decode(%d bytes) = %v", n, err)
		}
		if err := l.DecodeRaw(raw, make([]byte, n), Big); !errors.Is(err, ErrSize) {
			t.Errorf("DecodeRaw(%d bytes) = %v", n, err)
		}
	}
	dg := make([]byte, l.Size)
	if err := l.Decode(vals[:len(vals)-1], dg, Little); err == nil || errors.Is(err, ErrSize) {
		t.Errorf("Decode into a short dst = %v", err)
	}
	if err := l.DecodeRaw(raw[:3], dg, Little); err == nil {
		t.Error("DecodeRaw into a short dst succeeded")
	}
	// A longer dst is fine; the tail is untouched.
	long := make([]float64, l.TotalElements()+1)
	long[len(long)-1] = 42
	if err := l.Decode(long, dg, Little); err != nil || long[len(long)-1] != 42 {
		t.Errorf("Decode into a long dst: %v %v", err, long[len(long)-1])
	}
}

var (
	sinkErr   error
	bigLayout = "Trigger:uint8,Ia:float32,Wave:float32[4096],Cnt:uint64,D:float64[512],I:int16[1024]"
)

func TestDecodeNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	for _, s := range []string{handBuilt.signals, bigLayout} {
		l := mustLayout(t, s)
		dg := make([]byte, l.Size)
		vals := make([]float64, l.TotalElements())
		raw := make([]uint64, l.TotalElements())
		for _, order := range []ByteOrder{Little, Big} {
			if n := testing.AllocsPerRun(1000, func() { sinkErr = l.Decode(vals, dg, order) }); n != 0 {
				t.Errorf("Decode(%v) allocates %v times", order, n)
			}
			if n := testing.AllocsPerRun(1000, func() { sinkErr = l.DecodeRaw(raw, dg, order) }); n != 0 {
				t.Errorf("DecodeRaw(%v) allocates %v times", order, n)
			}
		}
		if n := testing.AllocsPerRun(1000, func() { sinkErr = l.Decode(vals, dg[:1], Little) }); n > 1 {
			t.Errorf("a wrong size allocates %v times, want at most its error", n)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct{ name, sigs string }{{"mixed46B", handBuilt.signals}, {"big27KB", bigLayout}} {
		l := mustLayout(b, c.sigs)
		dg := make([]byte, l.Size)
		vals := make([]float64, l.TotalElements())
		raw := make([]uint64, l.TotalElements())
		for _, order := range []ByteOrder{Little, Big} {
			b.Run(c.name+"/"+order.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(l.Size))
				for b.Loop() {
					sinkErr = l.Decode(vals, dg, order)
				}
			})
			b.Run(c.name+"/raw/"+order.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(l.Size))
				for b.Loop() {
					sinkErr = l.DecodeRaw(raw, dg, order)
				}
			})
		}
	}
}

// TestChar8Layout: a char8[N] signal is N bytes at its place in
// declaration order, as MARTe2's MemoryDataSourceI lays out a char8 array
// (numberOfBits 8 × NumberOfElements, no padding, no terminator added),
// never swapped for a big-endian datagram, and read as text up to its
// first NUL.
func TestChar8Layout(t *testing.T) {
	l := mustLayout(t, "Counter:uint32,Label:char8[8],Value:float32,Code:char8")
	if l.Size != 4+8+4+1 || !slices.Equal(l.offsetsOf, []int{0, 4, 12, 16}) || l.TotalElements() != 1+8+1+1 {
		t.Fatalf("size %d offsets %v elements %d", l.Size, l.offsetsOf, l.TotalElements())
	}
	dg := []byte{0x2A, 0, 0, 0, 's', 'h', 'o', 't', ' ', '7', 0, 0, 0, 0, 0xC0, 0x3F, 'A'}
	if got := string(bytes.TrimRight(l.Field(dg, 1), "\x00")); got != "shot 7" {
		t.Errorf("Label = %q", got)
	}
	if got := string(l.Field(dg, 3)); got != "A" {
		t.Errorf("Code = %q", got)
	}
	vals := make([]float64, l.TotalElements())
	if err := l.Decode(vals, dg, Little); err != nil {
		t.Fatal(err)
	}
	if vals[0] != 42 || vals[1] != 's' || vals[6] != '7' || vals[7] != 0 || vals[9] != 1.5 || vals[10] != 'A' {
		t.Errorf("Decode = %v", vals)
	}
	raw := make([]uint64, l.TotalElements())
	if err := l.DecodeRaw(raw, dg, Big); err != nil || raw[0] != 0x2A000000 || raw[1] != 's' || raw[10] != 'A' {
		t.Errorf("DecodeRaw big-endian: %v %#x", err, raw)
	}
	if l.Field(dg[:5], 1) != nil || l.Field(dg, 4) != nil || l.Field(dg, -1) != nil {
		t.Error("Field out of range")
	}
}

// invalidType is a Type no signal has.
const invalidType = datasource.Type(0xFF)

// elementType returns the type of element k of l's decoded slice.
func elementType(l *Layout, k int) datasource.Type {
	for _, sp := range l.spans {
		if k < sp.elem+sp.n {
			return sp.typ
		}
	}
	return invalidType
}

// TestNilLayout: the nil a failed NewLayout returns decodes nothing and
// says why, instead of panicking.
func TestNilLayout(t *testing.T) {
	var l *Layout
	if err := l.Decode(make([]float64, 4), make([]byte, 4), Little); !errors.Is(err, errNilLayout) {
		t.Errorf("Decode: %v", err)
	}
	if err := l.DecodeRaw(make([]uint64, 4), make([]byte, 4), Little); !errors.Is(err, errNilLayout) {
		t.Errorf("DecodeRaw: %v", err)
	}
	if l.TotalElements() != 0 || l.Field(make([]byte, 4), 0) != nil {
		t.Error("a nil Layout has elements or fields")
	}
}
