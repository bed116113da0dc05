package marte2

import (
	"math/bits"
	"strconv"
	"strings"
)

// wave holds the parameters of a WaveformGAM that maps to a sine.
type wave struct {
	amplitude, frequency, phase, offset float64
	chirp                               bool    // a WaveformChirp whose two frequencies are equal
	out                                 *outGAM // the streamerd GAM it became
}

// waveform checks a WaveformSin or WaveformChirp and returns the origin of
// its outputs: the waveform, or why it cannot be imported.
func (im *importer) waveform(a *application, t *threadState, g *gamDef, ins []*origin) *origin {
	if len(ins) != 1 {
		return unfedBy(g, "%s has %d inputs; a WaveformGAM has one, its Time", g.path, len(ins))
	}
	switch in := ins[0]; in.kind {
	case originTime:
	case originUnfed:
		// The first reason only: a chain of GAMs does not nest reasons.
		cause := in.rootCause()
		o := unfedFor(reason{cause: cause, blame: in.blame, format: "%s: its Time input is not imported: %s", args: []any{g.path, cause}})
		o.via = in.via
		return o
	default:
		return unfedBy(g, "%s reads %s as its time input; streamerd's waveforms read the LinuxTimer Time", g.path, in.describe())
	}
	for _, k := range []string{"StartTriggerTime", "StopTriggerTime"} {
		if !g.node.Leaf(k).IsZero() {
			return unfedBy(g, "%s uses %s; streamerd's waveforms have no trigger times", g.path, k)
		}
	}
	n := -1
	for _, o := range g.outputs() {
		im.steps++
		typ, elems := a.signalShape(o)
		if !isNumericType(typ) {
			return unfedBy(g, "%s: output %s has type %q; a WaveformGAM writes numeric types", g.path, o.name(), typ)
		}
		if n >= 0 && elems != n {
			return unfedBy(g, "%s: its outputs have different element counts (MARTe2 refuses this)", g.path)
		}
		n = elems
	}
	w := &wave{}
	var why string
	need := func(k string, p *float64) bool {
		l := g.node.Leaf(k)
		if l.IsZero() {
			why = g.path.String() + " has no " + k + " (MARTe2 refuses the GAM without it)"
			return false
		}
		s, _ := l.Value().Text()
		v, ok := parseFloat(s)
		if !ok {
			why = g.path.String() + ": " + k + ": expected a number, got " + strconv.Quote(s)
			return false
		}
		*p = v
		return true
	}
	ok := need("Amplitude", &w.amplitude) && need("Phase", &w.phase) && need("Offset", &w.offset)
	if ok && g.kind() == "WaveformSin" {
		ok = need("Frequency", &w.frequency)
	}
	if ok && g.kind() == "WaveformChirp" {
		var f1, f2, d float64
		ok = need("Frequency1", &f1) && need("Frequency2", &f2) && need("ChirpDuration", &d)
		if ok && f1 != f2 {
			return unfedBy(g, "%s sweeps from %g Hz to %g Hz; streamerd has no chirp (only Frequency1 = Frequency2, a sine, maps)", g.path, f1, f2)
		}
		w.frequency, w.chirp = f1, true
	}
	if !ok {
		return unfedBy(g, "%s", why)
	}
	if w.amplitude == 0 {
		return unfedBy(g, "%s: Amplitude is 0 (MARTe2 refuses the GAM)", g.path)
	}
	if w.frequency < 0 {
		return unfedBy(g, "%s: Frequency %g Hz is negative; streamerd needs ≥ 0", g.path, w.frequency)
	}
	im.waves[g] = w
	return &origin{kind: originWave, thread: t, gam: g}
}

// constant returns the origin of a ConstantGAM output: its Default, which
// must give every element the same value.
func (im *importer) constant(a *application, t *threadState, g *gamDef, s *gamSignal) *origin {
	if g.nInputs() > 0 {
		return unfedBy(g, "%s has inputs; a ConstantGAM has none (MARTe2 refuses it)", g.path)
	}
	l := s.node().Leaf("Default")
	if l.IsZero() {
		return unfedBy(g, "%s has no Default (MARTe2 refuses the GAM without it)", s)
	}
	typ, elems := a.signalShape(s)
	if typ == "char8" {
		return im.textConstant(t, g, s, l, max(elems, 1))
	}
	if !isNumericType(typ) {
		return unfedBy(g, "%s has type %q; streamerd's constants are numeric or char8 text", s, typ)
	}
	first := l.Value().First().Text
	for it := range l.Value().All() {
		im.steps++
		if it.Text != first {
			return unfedBy(g, "%s: Default %v gives the elements different values; streamerd's constant gives every element the same", s, l.Value())
		}
	}
	v, ok := parseFloat(first)
	if !ok {
		return unfedBy(g, "%s: Default %q is not a number", s, first)
	}
	if u, ok := parseUint(strings.TrimPrefix(first, "-"), 64); ok && bits.Len64(u)-bits.TrailingZeros64(u) > 53 {
		im.approx(l.Pos(), s.String(), g.class, "Default %s is not exact in float64; streamerd sends the nearest float64, %v", first, v)
	}
	return constOrigin(t, g, s, constValue{num: v})
}

// textConstant returns the origin of a char8[n] ConstantGAM output whose
// Default is a quoted string: streamerd's Text GAM writes it. MARTe2
// keeps the first n-1 bytes of an n-byte Default and a NUL, and refuses a
// longer one.
func (im *importer) textConstant(t *threadState, g *gamDef, s *gamSignal, l Node, n int) *origin {
	if v := l.Value(); v.Dims() != 0 || v.Expr() || v.Len() != 1 || !v.First().Quoted {
		return unfedBy(g, "%s: Default %v of a char8 signal is not one quoted string; streamerd's Text GAM writes a string", s, v)
	}
	text := l.Value().First().Text
	switch {
	case text == "":
		return unfedBy(g, "%s: Default is the empty string; a signal nothing writes stays empty (NUL) too", s)
	case strings.IndexByte(text, 0) >= 0:
		return unfedBy(g, "%s: Default contains a NUL byte, which would end the text early", s)
	case len(text) > n:
		return unfedBy(g, "%s: Default of %d bytes is longer than char8[%d] (MARTe2 refuses it)", s, len(text), n)
	case len(text) == n:
		im.approx(l.Pos(), s.String(), g.class, "Default of %d bytes fills char8[%d]: MARTe2 sends its first %d and a NUL, and so does streamerd", n, n, n-1)
		text = text[:n-1]
	}
	return constOrigin(t, g, s, constValue{text: &text})
}

// constOrigin returns the origin of the output s of the ConstantGAM g, of
// value v (the two in one allocation).
func constOrigin(t *threadState, g *gamDef, s *gamSignal, v constValue) *origin {
	c := &struct {
		o origin
		v constValue
	}{origin{kind: originConst, thread: t, gam: g, out: s}, v}
	c.o.value = &c.v
	return &c.o
}

func isNumericType(t string) bool {
	switch t {
	case "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64":
		return true
	}
	return false
}
