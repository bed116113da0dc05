package flatudp

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/testenv"
)

// swapCase returns the layout of sigs and one datagram of random elements
// in either byte order.
func swapCase(tb testing.TB, sigs string) (l *wire.Layout, le, be []byte) {
	l = flatenc.Layout(tb, sigs)
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]uint64, l.TotalElements())
	k := 0
	for _, s := range l.Signals {
		for range s.Count {
			raw[k] = r.Uint64() >> (64 - 8*s.Type.Size())
			k++
		}
	}
	return l, flatenc.AppendRaw(nil, l, raw, wire.Little), flatenc.AppendRaw(nil, l, raw, wire.Big)
}

// TestSwapToBig: the sender's big-endian datagram is the little-endian
// memory block with every element's bytes reversed, a char8 field as it
// is; in place twice is the identity; bytes past the layout are left alone.
func TestSwapToBig(t *testing.T) {
	l, le, be := swapCase(t, "Trigger:uint8,Ia:float32,Wave:int16[3],Big:uint64,Label:char8[5],D:float64,U16:uint16,V:float32[2]")
	runs := elemRuns(l.Signals)
	dst := make([]byte, l.Size)
	swapToBig(dst, le, runs)
	if !bytes.Equal(dst, be) {
		t.Errorf("swapToBig = % x\nwant        % x", dst, be)
	}
	if !bytes.Equal(l.Field(dst, 4), l.Field(le, 4)) {
		t.Error("char8 field swapped")
	}
	inPlace := slices.Clone(le)
	swapToBig(inPlace, inPlace, runs)
	if !bytes.Equal(inPlace, be) {
		t.Errorf("in-place swapToBig = % x", inPlace)
	}
	swapToBig(inPlace, inPlace, runs)
	if !bytes.Equal(inPlace, le) {
		t.Error("swapToBig twice is not the identity")
	}
	long := append(slices.Clone(le), 0xAA, 0xBB)
	swapToBig(long, long, runs)
	if !bytes.Equal(long[:l.Size], be) || long[l.Size] != 0xAA || long[l.Size+1] != 0xBB {
		t.Error("swapToBig on a longer buffer")
	}
}

var swapLayout = "Trigger:uint8,Ia:float32,Wave:float32[4096],Cnt:uint64,D:float64[512],I:int16[1024]"

func TestSwapToBigNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	l, le, _ := swapCase(t, swapLayout)
	runs, out := elemRuns(l.Signals), make([]byte, l.Size)
	if n := testing.AllocsPerRun(1000, func() { swapToBig(out, le, runs) }); n != 0 {
		t.Errorf("swapToBig allocates %v times", n)
	}
}

func BenchmarkSwapToBig(b *testing.B) {
	l, le, _ := swapCase(b, swapLayout)
	runs, out := elemRuns(l.Signals), make([]byte, l.Size)
	b.ReportAllocs()
	b.SetBytes(int64(l.Size))
	for b.Loop() {
		swapToBig(out, le, runs)
	}
}
