package memory

import (
	"math"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

func TestMemoryPackedInDeclarationOrder(t *testing.T) {
	sigs := []datasource.Signal{
		{Name: "Trigger", Type: datasource.Uint8},
		{Name: "Ia", Type: datasource.Float32},
		{Name: "Wave", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 3},
		{Name: "M", Type: datasource.Int16, NumberOfDimensions: 2, Rows: 2, Cols: 3},
	}
	m := New(sigs)
	wantOff := []int{0, 1, 5, 29}
	for i, w := range wantOff {
		if m.Offset(i) != w {
			t.Errorf("offset %d = %d, want %d", i, m.Offset(i), w)
		}
	}
	if m.Size() != 29+12 || m.Signals() != 4 {
		t.Errorf("size %d, %d signals", m.Size(), m.Signals())
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
