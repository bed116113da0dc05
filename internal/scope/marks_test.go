package scope

import (
	"math"
	"testing"
)

// clockSigs are two scalars on the server's clock and one on a time
// signal's.
var clockSigs = []Signal{
	{Name: "A", Elements: 1, Trace: true},
	{Name: "B", Elements: 1, Trace: true},
	{Name: "C", Elements: 1, Trace: true, Clock: 1},
}

// clockUpdate is update k: 1 ms apart on clock 0, and on clock 1 the same
// instants 100 s later.
func clockUpdate(k int) *fakeUpdate {
	t := float64(k) / 1000
	return &fakeUpdate{vals: [][]float64{{1}, {2}, {3}}, times: [][]float64{{t}, {t}, {t + 100}}}
}

// frameOf builds and parses the frame of a view of window seconds over
// cols columns, live, of A and C.
func frameOf(t *testing.T, h *Hub, window float64, cols int) Frame {
	t.Helper()
	f, _ := viewFrame(t, h, &viewMsg{Gen: 1, Live: true, From: -window, To: 0, Cols: cols,
		Traces: []traceRef{{Sig: 0, Kind: "trace"}, {Sig: 2, Kind: "trace"}}})
	return f
}

// viewFrame builds and parses the frame of view m; it returns the view
// as parsed too.
func viewFrame(t *testing.T, h *Hub, m *viewMsg) (Frame, view) {
	t.Helper()
	v, err := parseView(m, h.lim)
	if err != nil {
		t.Fatal(err)
	}
	var sc frameScratch
	f, err := ParseFrame(h.appendFrame(&sc, &v, 1))
	if err != nil {
		t.Fatal(err)
	}
	return f, v
}

// TestMarkersInFrame: updates lost and cycles skipped are marked at the
// time of the update after them, and a silence at the last time before
// it, on each clock of the view, relative to that clock's anchor.
func TestMarkersInFrame(t *testing.T) {
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, clockSigs)
	for k := range 100 {
		switch k {
		case 50:
			h.missed(3, 0)
		case 70:
			h.missed(0, 4)
		}
		h.push(clockUpdate(k), false)
	}
	h.silenced()
	f := frameOf(t, h, 1, 1000)
	want := map[[2]int]float64{ // clock, kind: x
		{0, int(MarkLost)}: -0.049, {0, int(MarkSkipped)}: -0.029, {0, int(MarkSilence)}: 0,
		{1, int(MarkLost)}: -0.049, {1, int(MarkSkipped)}: -0.029, {1, int(MarkSilence)}: 0,
	}
	counts := map[MarkKind]uint32{MarkLost: 3, MarkSkipped: 4, MarkSilence: 1}
	if len(f.Markers) != len(want) {
		t.Fatalf("markers %+v", f.Markers)
	}
	for _, m := range f.Markers {
		x, ok := want[[2]int{m.Clock, int(m.Kind)}]
		if !ok || math.Abs(m.X-x) > 1e-9 || m.Count != counts[m.Kind] {
			t.Errorf("marker %+v, want x %v count %d", m, x, counts[m.Kind])
		}
	}
	// A view of one clock's traces has that clock's markers only; a view
	// whose window has left them has none.
	if f, _ := viewFrame(t, h, &viewMsg{Gen: 1, Live: true, From: -1, To: 0, Cols: 100, Traces: []traceRef{{Sig: 2, Kind: "trace"}}}); len(f.Markers) != 3 || f.Markers[0].Clock != 1 {
		t.Errorf("clock 1's view: markers %+v", f.Markers)
	}
	for k := 100; k < 1200; k++ {
		h.push(clockUpdate(k), false)
	}
	if f := frameOf(t, h, 1, 1000); len(f.Markers) != 0 {
		t.Errorf("markers out of the window: %+v", f.Markers)
	}
}

// TestMarkersSummedAndBounded: markers of one column and kind are one
// marker with their sum; a clock keeps maxMarks, a frame has at most
// maxFrameMarkers.
func TestMarkersSummedAndBounded(t *testing.T) {
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, clockSigs)
	for k := range 3 * maxMarks {
		h.missed(1, 0)
		h.push(clockUpdate(k), false)
	}
	var sum uint64
	f := frameOf(t, h, 60, 16)
	for _, m := range f.Markers {
		if m.Clock == 0 {
			sum += uint64(m.Count)
		}
	}
	if sum != maxMarks || len(f.Markers) > 2*16 {
		t.Errorf("%d markers summing %d on clock 0, want maxMarks (%d) summed into at most 16 per clock", len(f.Markers), sum, maxMarks)
	}
	f = frameOf(t, h, 2, MaxColumns) // a column is less than the 1 ms between them
	if len(f.Markers) != 2*maxMarks {
		t.Errorf("%d markers over %d columns, want %d", len(f.Markers), MaxColumns, 2*maxMarks)
	}
	if _, n := h.appendMarks(nil, 0, 0, 0, 4, MaxColumns, 10); n != 10 {
		t.Errorf("appendMarks with room for 10 appended %d", n)
	}
}

// TestFrameBounded: a view of MaxTraces traces over MaxColumns columns of
// a long history gets fewer columns, so its frame holds at most
// MaxFramePoints points.
func TestFrameBounded(t *testing.T) {
	h, u := scalarsHub(MaxTraces)
	for k := range 20000 {
		u.fill(k)
		h.push(u, false)
	}
	traces := make([]traceRef, MaxTraces)
	for i := range traces {
		traces[i] = traceRef{Sig: i, Kind: "trace"}
	}
	f, v := viewFrame(t, h, &viewMsg{Gen: 1, Live: true, From: -2, To: 0, Cols: MaxColumns, Traces: traces})
	points, bytes := 0, frameHeaderSize+markerHeaderSize
	for _, tr := range f.Traces {
		points += len(tr.X)
		bytes += traceHeaderSize + 4*(len(tr.X)+len(tr.X)%2) + 8*len(tr.Y)
	}
	if len(f.Traces) != MaxTraces || points > MaxFramePoints || points < MaxFramePoints/4 {
		t.Errorf("%d traces, %d points (bound %d), %d columns", len(f.Traces), points, MaxFramePoints, v.cols)
	}
	t.Logf("%d traces: %d columns, %d points, %d bytes", len(f.Traces), v.cols, points, bytes)
}

// TestMaxTracesLimit: Limits.MaxTraces lowers the traces of a view and
// the bound the page is told; it never raises MaxTraces.
func TestMaxTracesLimit(t *testing.T) {
	h := NewHub(Limits{MaxTraces: 3}, quietLog())
	if _, err := parseView(&viewMsg{Live: true, From: -1, Cols: 100, Traces: make([]traceRef, 4)}, h.lim); err == nil || !contains(err.Error(), "at most 3") {
		t.Errorf("4 traces of 3: %v", err)
	}
	if h.pageLimits().MaxTraces != 3 || NewHub(Limits{MaxTraces: MaxTraces + 1}, quietLog()).lim.MaxTraces != MaxTraces {
		t.Error("MaxTraces not applied")
	}
}
