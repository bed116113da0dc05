package datasource

import (
	"testing"

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
	if !Char8.Valid() || Char8.IsFloat() || Char8.Signed() {
		t.Error("Char8 is a valid, non-numeric type")
	}
	for i, m := range []string{"PacketTime", "FullArray", "FirstSample", "LastSample"} {
		if tm := TimeMode(i); tm.String() != m {
			t.Errorf("%s: %v", m, tm)
		}
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
