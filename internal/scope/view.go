package scope

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// viewMsg is what a page sends when its view changes.
type viewMsg struct {
	Type   string     `json:"type"` // "view"
	Gen    uint64     `json:"gen"`  // the signal list the traces refer to
	Vid    uint8      `json:"vid"`  // the page's number for this view, echoed in its frames
	Live   bool       `json:"live"`
	From   float64    `json:"from"` // seconds relative to each trace's anchor; live: -window
	To     float64    `json:"to"`   // live: 0
	Cols   int        `json:"cols"` // pixel columns of the widest plot
	FPS    int        `json:"fps"`  // frames per second wanted; 0: the server's rate
	Traces []traceRef `json:"traces"`
}

// traceRef is one trace a page asks for.
type traceRef struct {
	Sig  int    `json:"sig"`
	Kind string `json:"kind"` // "trace", "wave" or "elem"
	Elem int    `json:"elem,omitempty"`
}

// view is a viewer's parsed, checked view.
type view struct {
	gen      uint64
	vid      uint8
	live     bool
	from, to float64
	cols     int
	fps      int
	traces   []viewTrace
	anchors  []float64 // frozen: each clock's newest time when the view froze
}

type viewTrace struct {
	sig, elem int
	kind      TraceKind
}

// Minimum columns and frozen window, so a page cannot ask for nonsense.
const (
	minColumns   = 16
	minFrozenWin = 1e-7 // seconds
)

// parseView checks a view message against the hub's limits.
func parseView(m *viewMsg, lim Limits) (view, error) {
	v := view{gen: m.Gen, vid: m.Vid, live: m.Live, cols: m.Cols, fps: m.FPS}
	if m.Cols < minColumns || m.Cols > MaxColumns {
		return v, fmt.Errorf("cols %d outside %d..%d", m.Cols, minColumns, MaxColumns)
	}
	if len(m.Traces) > lim.MaxTraces {
		return v, fmt.Errorf("%d traces: at most %d", len(m.Traces), lim.MaxTraces)
	}
	if m.FPS < 0 || m.FPS > 120 {
		return v, fmt.Errorf("fps %d outside 0..120", m.FPS)
	}
	w := m.To - m.From
	maxW := lim.MaxWindow.Seconds()
	switch {
	case math.IsNaN(w) || math.IsInf(w, 0) || math.IsInf(m.From, 0) || math.IsInf(m.To, 0):
		return v, fmt.Errorf("window [%v, %v] is not finite", m.From, m.To)
	case m.Live && (w < MinWindow.Seconds()*0.999 || w > maxW*1.001):
		return v, fmt.Errorf("window %v s outside %v..%v", w, MinWindow.Seconds(), maxW)
	case !m.Live && (w < minFrozenWin || w > 2*maxW || m.From < -4*maxW || m.To > maxW):
		return v, fmt.Errorf("frozen window [%v, %v] out of bounds", m.From, m.To)
	}
	v.from, v.to = m.From, m.To
	if m.Live {
		v.from, v.to = -w, 0
	}
	for _, t := range m.Traces {
		vt := viewTrace{sig: t.Sig, elem: t.Elem}
		switch t.Kind {
		case "trace":
			vt.kind = KindTrace
		case "wave":
			vt.kind = KindWave
		case "elem":
			vt.kind = KindElement
		default:
			return v, fmt.Errorf("trace kind %q: want trace, wave or elem", t.Kind)
		}
		v.traces = append(v.traces, vt)
	}
	if n := len(v.traces); n > 0 {
		// Each trace gets at most 3 points per column and 2 beside the
		// window: a frame holds at most MaxFramePoints.
		v.cols = max(minColumns, min(v.cols, (MaxFramePoints/n-2)/3))
	}
	return v, nil
}

// checkTraces refuses a view whose traces name a signal, or an element,
// that the signal list of its generation does not have, or a generation
// not yet made. A view of an older generation is kept: its page is about
// to get the new list, and its traces are left out of frames meanwhile.
func (h *Hub) checkTraces(v *view) error {
	sigs, gen := h.Signals()
	switch {
	case v.gen > gen:
		return fmt.Errorf("signal list %d: the newest is %d", v.gen, gen)
	case v.gen < gen:
		return nil
	}
	for i, t := range v.traces {
		if t.sig < 0 || t.sig >= len(sigs) {
			return fmt.Errorf("trace %d: no signal %d: the list has %d signals (0 to %d)", i, t.sig, len(sigs), len(sigs)-1)
		}
		if s := &sigs[t.sig]; t.kind == KindElement && (t.elem < 0 || t.elem >= s.Elements) {
			return fmt.Errorf("trace %d: no such element %d: %q has %d elements (0 to %d)", i, t.elem, s.Name, s.Elements, s.Elements-1)
		}
	}
	return nil
}

// frameScratch is one viewer's reused buffers for building frames.
type frameScratch struct {
	buf    []byte
	pts    Points
	dec    decimator
	clocks []bool
}

// appendFrame builds the frame of view v into sc.buf. Traces of another
// signal list generation, or with nothing to show yet, are left out.
func (h *Hub) appendFrame(sc *frameScratch, v *view, seq uint32) []byte {
	b := appendFrameHeader(sc.buf[:0], seq, uint32(v.gen), v.vid, v.live, v.from, v.to)
	n := 0
	for i := range v.traces {
		var ok bool
		if b, ok = h.appendViewTrace(b, sc, v, i); ok {
			n++
		}
	}
	setFrameTraces(b, n)
	b = h.appendViewMarks(b, sc, v)
	sc.buf = b
	return b
}

// appendViewMarks appends the marker section: the markers of every clock
// of v's time traces, within v's window.
func (h *Hub) appendViewMarks(b []byte, sc *frameScratch, v *view) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	h.mu.RLock()
	defer h.mu.RUnlock()
	if v.gen != h.gen {
		return b
	}
	sc.clocks = append(sc.clocks[:0], make([]bool, len(h.clocks))...)
	for _, t := range v.traces {
		if t.kind != KindWave && t.sig >= 0 && t.sig < len(h.sigs) {
			if c := h.sigs[t.sig].Clock; c >= 0 && c < len(sc.clocks) {
				sc.clocks[c] = true
			}
		}
	}
	total := 0
	for c, used := range sc.clocks {
		var anchor float64
		switch {
		case !used:
			continue
		case !v.live && c < len(v.anchors):
			anchor = v.anchors[c]
		case v.live && h.clocks[c].ok:
			anchor = h.clocks[c].newest
		default:
			continue
		}
		var n int
		b, n = h.appendMarks(b, c, anchor, anchor+v.from, anchor+v.to, v.cols, maxFrameMarkers-total)
		total += n
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(total))
	return b
}

// appendViewTrace appends trace i of v, holding the read lock for this
// trace only.
func (h *Hub) appendViewTrace(b []byte, sc *frameScratch, v *view, i int) ([]byte, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	vt := v.traces[i]
	if v.gen != h.gen || vt.sig < 0 || vt.sig >= len(h.sigs) {
		return b, false
	}
	sc.pts.reset()
	head := traceHead{index: i, kind: vt.kind, last: math.NaN(), oldestRelTime: math.NaN()}
	if vt.kind == KindWave {
		w := h.state[vt.sig].wave
		if w == nil || !w.ok || !v.live {
			return b, false // a frozen page keeps the waveform it has
		}
		head.level = waveInto(&sc.pts, &sc.dec, w, v.cols)
		head.last = w.y[len(w.y)-1]
		return appendTrace(b, head, &sc.pts), true
	}
	s := h.state[vt.sig].trace
	if vt.kind == KindElement {
		s = h.elementSeries(vt.sig, vt.elem)
	}
	if s == nil {
		return b, false
	}
	c := h.sigs[vt.sig].Clock
	switch {
	case !v.live && c < len(v.anchors):
		head.anchor = v.anchors[c]
	case v.live && c < len(h.clocks) && h.clocks[c].ok:
		head.anchor = h.clocks[c].newest
	default:
		return b, false
	}
	head.level = s.query(&sc.pts, &sc.dec, head.anchor+v.from, head.anchor+v.to, v.cols)
	if _, last, ok := s.last(); ok {
		head.last = last
	}
	if t, ok := s.oldest(); ok {
		head.oldestRelTime = t - head.anchor
	}
	return appendTrace(b, head, &sc.pts), true
}

// elementSeries returns the recording of element elem of signal sig, nil
// if there is none; it marks it used. Caller holds the read lock.
func (h *Hub) elementSeries(sig, elem int) *series {
	for _, e := range h.elems {
		if e.sig == sig && e.elem == elem {
			e.used.Store(time.Now().UnixNano())
			return e.s
		}
	}
	return nil
}

// anchors returns each clock's newest time, for a view that freezes now.
func (h *Hub) anchors(gen uint64) []float64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if gen != h.gen {
		return nil
	}
	a := make([]float64, len(h.clocks))
	for c, cl := range h.clocks {
		a[c] = cl.newest
	}
	return a
}

// waveInto puts waveform w into p, reduced to cols columns when it has
// more than two elements per column; it returns the level (0 or 1).
func waveInto(p *Points, d *decimator, w *wave, cols int) int {
	if len(w.x) <= 2*cols {
		p.T = append(p.T, w.x...)
		p.V = append(p.V, w.y...)
		return 0
	}
	d.reset(p, w.x[0], w.x[len(w.x)-1], cols)
	d.add(w.x, w.y)
	d.finish()
	return 1
}

// oldest returns the oldest time any level holds.
func (s *series) oldest() (float64, bool) {
	t, ok := 0.0, false
	for _, r := range s.levels {
		if r.n > 0 && (!ok || r.oldest() < t) {
			t, ok = r.oldest(), true
		}
	}
	return t, ok
}

// decodeView parses a page's JSON view message.
func decodeView(data []byte, lim Limits) (view, error) {
	var m viewMsg
	if err := json.Unmarshal(data, &m); err != nil {
		return view{}, err
	}
	return parseView(&m, lim)
}
