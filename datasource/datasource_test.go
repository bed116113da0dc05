package datasource

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/quant"
)

func TestTypeSizesAndNames(t *testing.T) {
	want := map[string]int{"uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 4, "int32": 4, "uint64": 8, "int64": 8, "float32": 4, "float64": 8, "char8": 1}
	for name, size := range want {
		ty, err := ParseType(name)
		if err != nil {
			t.Fatal(err)
		}
		if ty.Size() != size || ty.String() != name {
			t.Errorf("%s: size %d name %q", name, ty.Size(), ty.String())
		}
	}
	if _, err := ParseType("float16"); err == nil {
		t.Error("float16 accepted")
	}
	if Type(11).Size() != 0 || Type(11).Valid() {
		t.Error("Type(11) valid")
	}
	if !Char8.Valid() || Char8.Numeric() || !Float64.Numeric() || Char8.IsFloat() || Char8.Signed() {
		t.Error("Char8 is a valid, non-numeric type")
	}
	for i, m := range []string{"PacketTime", "FullArray", "FirstSample", "LastSample"} {
		tm, err := ParseTimeMode(m)
		if err != nil || tm.String() != m || tm != TimeMode(i) {
			t.Errorf("%s: %v %v", m, tm, err)
		}
	}
	if _, err := ParseTimeMode("Later"); err == nil || TimeMode(4).Valid() {
		t.Error("time mode 4 accepted")
	}
	if _, err := ParseTimeMode("Later"); err == nil || err.Error() != `unknown time mode "Later" (want PacketTime, FullArray, FirstSample or LastSample)` {
		t.Errorf("ParseTimeMode(Later): %v", err)
	}
	if s := Type(11).String() + " " + TimeMode(4).String(); s != "Type(11) TimeMode(4)" {
		t.Errorf("names of invalid values: %s", s)
	}
}

// TestWireCodes pins the values the UDPStreamer CONFIG record carries: a
// Type, a TimeMode and a quant.WireType are written as their own byte.
func TestWireCodes(t *testing.T) {
	for i, name := range []string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"} {
		if ty, _ := ParseType(name); ty != Type(i) {
			t.Errorf("%s is code %d, want %d", name, ty, i)
		}
	}
	for q, want := range map[quant.WireType]Type{quant.None: Float64, quant.Uint8: Uint8, quant.Int8: Int8, quant.Uint16: Uint16, quant.Int16: Int16, 5: Float64} {
		if got := Float64.Quantized(q); got != want {
			t.Errorf("Float64.Quantized(%v) = %v, want %v", q, got, want)
		}
	}
	if quant.Int16 != 4 || !quant.Int16.Valid() || quant.WireType(5).Valid() {
		t.Error("quantisation codes moved")
	}
}

func TestTypeOf(t *testing.T) {
	type volts float32
	type code int16
	cases := []struct{ got, want Type }{
		{TypeOf[uint8](), Uint8}, {TypeOf[int8](), Int8}, {TypeOf[uint16](), Uint16}, {TypeOf[int16](), Int16},
		{TypeOf[uint32](), Uint32}, {TypeOf[int32](), Int32}, {TypeOf[uint64](), Uint64}, {TypeOf[int64](), Int64},
		{TypeOf[float32](), Float32}, {TypeOf[float64](), Float64}, {TypeOf[volts](), Float32}, {TypeOf[code](), Int16},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: %v, want %v", i, c.got, c.want)
		}
	}
}

func TestMemoryPackedInDeclarationOrder(t *testing.T) {
	sigs := []Signal{
		{Name: "Trigger", Type: Uint8},
		{Name: "Ia", Type: Float32},
		{Name: "Wave", Type: Float64, NumberOfDimensions: 1, NumberOfElements: 3},
		{Name: "M", Type: Int16, NumberOfDimensions: 2, Rows: 2, Cols: 3},
	}
	if err := ValidateSignals("ds", sigs); err != nil {
		t.Fatal(err)
	}
	m := NewMemory(sigs)
	wantOff := []int{0, 1, 5, 29}
	for i, w := range wantOff {
		if m.Offset(i) != w {
			t.Errorf("offset %d = %d, want %d", i, m.Offset(i), w)
		}
	}
	if m.Size() != 29+12 {
		t.Errorf("size %d", m.Size())
	}
	for _, b := range m.Block() {
		if b != 0 {
			t.Fatal("memory not zeroed")
		}
	}
	// A signal slice cannot grow into its neighbour.
	s := m.Signal(1)
	if cap(s) != 4 {
		t.Errorf("cap %d", cap(s))
	}
	// Unaligned typed view writes land at the packed offset, native order.
	View[float32](m.Signal(1))[0] = 1.5
	if got := View[float32](m.Block()[1:5])[0]; got != 1.5 {
		t.Errorf("view read %v", got)
	}
	if bits := uint32(m.Block()[1]) | uint32(m.Block()[2])<<8 | uint32(m.Block()[3])<<16 | uint32(m.Block()[4])<<24; bits != math.Float32bits(1.5) {
		t.Errorf("bytes %x", bits)
	}
	if r, c := sigs[3].Shape(); r != 2 || c != 3 {
		t.Errorf("shape %d×%d", r, c)
	}
	if r, c := sigs[2].Shape(); r != 1 || c != 3 {
		t.Errorf("shape %d×%d", r, c)
	}
	if r, c := sigs[0].Shape(); r != 1 || c != 1 {
		t.Errorf("shape %d×%d", r, c)
	}
}

func TestBytesAliases(t *testing.T) {
	v := []uint32{1, 2}
	b := Bytes(v)
	if len(b) != 8 {
		t.Fatal(len(b))
	}
	b[4] = 7
	if v[1] != 7 {
		t.Errorf("Bytes does not alias: %v", v)
	}
	if Bytes[float64](nil) != nil || View[uint64](make([]byte, 7)) != nil {
		t.Error("empty views not nil")
	}
}

func TestValidateSignalsNamesEveryRule(t *testing.T) {
	cases := []struct {
		name string
		sigs []Signal
		want []string
	}{
		{"none", nil, []string{`datasource "ds": Signals: at least one signal`}},
		{"empty name", []Signal{{Type: Uint8}}, []string{`signal "#0": Name: must not be empty`}},
		{"duplicate", []Signal{{Name: "a"}, {Name: "a"}}, []string{`signal "a": Name: duplicates signal #0`}},
		{"bad type", []Signal{{Name: "a", Type: 12}}, []string{`signal "a": Type: invalid type 12`}},
		{"scalar elements", []Signal{{Name: "a", NumberOfElements: 4}}, []string{`NumberOfElements: a scalar`}},
		{"1-D zero", []Signal{{Name: "a", NumberOfDimensions: 1}}, []string{`NumberOfElements: must be 1..`}},
		{"2-D no shape", []Signal{{Name: "a", NumberOfDimensions: 2, NumberOfElements: 4}}, []string{`Rows/Cols: a matrix needs`}},
		{"2-D mismatch", []Signal{{Name: "a", NumberOfDimensions: 2, Rows: 2, Cols: 2, NumberOfElements: 5}}, []string{`must equal Rows × Cols = 4, got 5`}},
		{"3-D", []Signal{{Name: "a", NumberOfDimensions: 3}}, []string{`NumberOfDimensions: must be 0, 1 or 2`}},
		{"all at once", []Signal{{Name: "", Type: 11}, {Name: "b", NumberOfDimensions: 5}}, []string{`Name: must not be empty`, `invalid type 11`, `NumberOfDimensions`}},
	}
	for _, c := range cases {
		err := ValidateSignals("ds", c.sigs)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not contain %q", c.name, err, w)
			}
		}
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: not a *ConfigError: %T", c.name, err)
		}
	}
}

var sinkBytes []byte

func TestViewNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	b := make([]byte, 64)
	f := make([]float32, 16)
	if n := testing.AllocsPerRun(1000, func() {
		View[float32](b)[3] = 1
		sinkBytes = Bytes(f)
	}); n != 0 {
		t.Errorf("%v allocs", n)
	}
}
