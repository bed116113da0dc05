package scope

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func encodeTestFrame() []byte {
	b := appendFrameHeader(nil, 7, 3, 9, true, -2.5, 0)
	p := Points{T: []float64{100, 100.5, 101}, V: []float64{1, math.NaN(), -3.25}}
	b = appendTrace(b, traceHead{index: 0, kind: KindTrace, level: 2, anchor: 101, last: -3.25, oldestRelTime: -40}, &p)
	p = Points{T: []float64{0, 1}, V: []float64{5, 6}}
	b = appendTrace(b, traceHead{index: 4, kind: KindWave, anchor: 0, last: 6, oldestRelTime: math.NaN()}, &p)
	b = appendTrace(b, traceHead{index: 5, kind: KindElement, last: math.NaN(), oldestRelTime: math.NaN()}, &Points{})
	setFrameTraces(b, 3)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = appendMarker(b, -0.5, 3, 0, MarkLost)
	return appendMarker(b, -0.25, 1, 2, MarkSilence)
}

// TestFrameRoundTrip: what appendTrace writes, ParseFrame reads back, and
// every array starts at a multiple of its element size (the page reads
// them in place).
func TestFrameRoundTrip(t *testing.T) {
	b := encodeTestFrame()
	f, err := ParseFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Seq != 7 || f.Gen != 3 || f.View != 9 || !f.Live || f.From != -2.5 || f.To != 0 || len(f.Traces) != 3 {
		t.Fatalf("header %+v", f)
	}
	a := f.Traces[0]
	if a.Index != 0 || a.Kind != KindTrace || a.Level != 2 || a.Anchor != 101 || a.Last != -3.25 || a.Oldest != -40 {
		t.Fatalf("trace 0 %+v", a)
	}
	if !slices.Equal(a.X, []float32{-1, -0.5, 0}) || a.Y[0] != 1 || !math.IsNaN(a.Y[1]) || a.Y[2] != -3.25 {
		t.Fatalf("trace 0 points %v %v", a.X, a.Y)
	}
	w := f.Traces[1]
	if w.Index != 4 || w.Kind != KindWave || !slices.Equal(w.X, []float32{0, 1}) || !slices.Equal(w.Y, []float64{5, 6}) || !math.IsNaN(w.Oldest) {
		t.Fatalf("trace 1 %+v", w)
	}
	if e := f.Traces[2]; e.Index != 5 || len(e.X) != 0 || !math.IsNaN(e.Last) {
		t.Fatalf("trace 2 %+v", e)
	}
	if want := []FrameMarker{{X: -0.5, Count: 3, Clock: 0, Kind: MarkLost}, {X: -0.25, Count: 1, Clock: 2, Kind: MarkSilence}}; !slices.Equal(f.Markers, want) {
		t.Fatalf("markers %+v, want %+v", f.Markers, want)
	}
	// Alignment: trace 0 has 3 points, so its x array is padded to 16 bytes.
	off := frameHeaderSize + traceHeaderSize
	if off%4 != 0 || (off+16)%8 != 0 || len(b) != frameHeaderSize+3*traceHeaderSize+16+24+8+16+markerHeaderSize+2*markerSize {
		t.Fatalf("layout: %d bytes", len(b))
	}
	for cut := range len(b) {
		if _, err := ParseFrame(b[:cut]); err == nil {
			t.Fatalf("a frame cut at %d parsed", cut)
		}
	}
}

// FuzzParseFrame: ParseFrame never panics, and what it accepts is whole.
func FuzzParseFrame(f *testing.F) {
	f.Add(encodeTestFrame())
	f.Add(append(appendFrameHeader(nil, 1, 1, 0, false, 0, 1), make([]byte, markerHeaderSize)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := ParseFrame(b)
		if err != nil {
			return
		}
		n := frameHeaderSize
		for _, tr := range fr.Traces {
			if len(tr.X) != len(tr.Y) {
				t.Fatal("x and y differ in length")
			}
			n += traceHeaderSize + 4*(len(tr.X)+len(tr.X)%2) + 8*len(tr.Y)
		}
		n += markerHeaderSize + markerSize*len(fr.Markers)
		if n != len(b) {
			t.Fatalf("parsed %d of %d bytes", n, len(b))
		}
	})
}

var sinkFrame []byte

// TestNoAllocsFrame: once a viewer's buffers have grown, building a frame
// allocates nothing.
func TestNoAllocsFrame(t *testing.T) {
	testenv.SkipIfRace(t)
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, fakeSigs)
	for k := range 5000 {
		if k%100 == 50 {
			h.missed(1, 2)
		}
		h.push(fakeUpdateAt(k), k%100 == 0)
	}
	v, err := parseView(&viewMsg{Gen: 1, Live: true, From: -2, To: 0, Cols: 800,
		Traces: []traceRef{{Sig: 0, Kind: "trace"}, {Sig: 1, Kind: "trace"}, {Sig: 2, Kind: "wave"}}}, h.lim)
	if err != nil {
		t.Fatal(err)
	}
	var sc frameScratch
	seq := uint32(0)
	build := func() {
		seq++
		sinkFrame = h.appendFrame(&sc, &v, seq)
	}
	build()
	if n := testing.AllocsPerRun(100, build); n != 0 {
		t.Errorf("%v allocations per frame", n)
	}
	f, err := ParseFrame(sinkFrame)
	if err != nil || len(f.Traces) != 3 || f.Traces[0].Last != 4999*0.5 {
		t.Fatalf("frame %+v, %v", f, err)
	}
}
