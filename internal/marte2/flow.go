package marte2

import (
	"fmt"
	"strconv"
	"strings"
)

// originKind says where the value of a signal comes from, once the GAMs
// that only move data (IOGAM, GAMDataSource) are looked through.
type originKind uint8

const (
	originUnfed   originKind = iota // from something not imported; why says what
	originCounter                   // the thread's LinuxTimer Counter
	originTime                      // the thread's LinuxTimer Time
	originWave                      // a WaveformGAM's output
	originConst                     // a ConstantGAM's output
)

// origin is where a value comes from.
type origin struct {
	kind    originKind
	thread  *threadState // the thread that produces it
	gam     *gamDef      // Wave, Const: the generator; Counter, Time: the GAM that reads the timer
	out     *gamSignal   // Const: the output, with its Default
	value   *constValue  // Const: its value
	via     *hop         // the last GAM it passed through (IOGAMs), or nil
	*reason              // Unfed: why; nil otherwise
}

// reason says why a value is unfed. Its text is formatted when asked for:
// a file may have a reason per signal, and most are never printed.
type reason struct {
	format string
	args   []any   // values that do not change
	cause  string  // the first reason, when this one wraps it (a chain of GAMs)
	blame  *gamDef // the GAM that is not imported, if a GAM is the cause
}

// why returns the reason, naming the objects.
func (r *reason) why() string { return fmt.Sprintf(r.format, r.args...) }

// Format writes what why returns.
func (r *reason) Format(f fmt.State, verb rune) {
	if !plainVerb(f, verb) {
		fmt.Fprintf(f, fmt.FormatString(f, verb), r.why())
		return
	}
	fmt.Fprintf(f, r.format, r.args...)
}

// constValue is the value of a ConstantGAM output.
type constValue struct {
	num  float64
	text *string // a char8 output: the text; nil for a number
	made *outGAM // the streamerd GAM it became
}

// hop is one GAM a value passed through. Hops form a list from the last
// to the first, shared by every value that passed the same way: following
// a value through n IOGAMs costs n hops, not n² strings.
type hop struct {
	gam   *gamDef
	prev  *hop // the hop before, nil for the first
	first *hop // the first hop of the list
	n     int  // hops up to this one
	seen  bool // walked by noteGAMs
}

// maxShownHops is how many GAMs "via" lists in full; a longer chain shows
// its first and last GAMs and a count.
const maxShownHops = 6

// write writes "A → B → C", or "A → … (n more) → Y → Z" for a long
// chain.
func (h *hop) write(w textSink) {
	var last [maxShownHops]*hop
	k := 0
	for x := h; x != nil && k < maxShownHops; x = x.prev {
		last[k] = x
		k++
	}
	if h.n > maxShownHops {
		h.first.gam.path.write(w)
		w.WriteString(" → … (")
		w.WriteString(strconv.Itoa(h.n - 3))
		w.WriteString(" more)")
		k = 2
	}
	for i := k - 1; i >= 0; i-- {
		if i < k-1 || h.n > maxShownHops {
			w.WriteString(" → ")
		}
		last[i].gam.path.write(w)
	}
}

func unfed(format string, args ...any) *origin {
	if vetFormats {
		_ = fmt.Sprintf(format, args...)
	}
	return unfedFor(reason{format: format, args: args})
}

// vetFormats is false: the call it guards in unfed lets go vet check the
// formats given to unfed, which formats them later (reason.why).
const vetFormats = false

// unfedFor returns an unfed origin for r (the two in one allocation).
func unfedFor(r reason) *origin {
	c := &struct {
		o origin
		r reason
	}{r: r}
	c.o = origin{kind: originUnfed, reason: &c.r}
	return &c.o
}

// unfedBy is unfed with the GAM g to blame.
func unfedBy(g *gamDef, format string, args ...any) *origin {
	o := unfed(format, args...)
	o.blame = g
	return o
}

// through returns o as seen after the IOGAM g; *last is the hop made
// before for g, shared when it follows the same hops.
func (o *origin) through(g *gamDef, last **hop) *origin {
	c := *o
	h := *last
	if h == nil || h.gam != g || h.prev != o.via {
		h = &hop{gam: g, prev: o.via, n: 1}
		h.first = h
		if o.via != nil {
			h.first, h.n = o.via.first, o.via.n+1
		}
		*last = h
	}
	c.via = h
	return &c
}

// rootCause returns the first reason of an unfed origin.
func (o *origin) rootCause() string {
	if o.cause != "" {
		return o.cause
	}
	return o.why()
}

// threadState is what resolving one thread found: its timer and the
// values its GAMs produce.
type threadState struct {
	def       *threadDef
	index     int         // in the imported state's threads
	timerOut  *outGAM     // the streamerd Timer GAM made for it
	timer     *dataSource // the LinuxTimer that paces it
	timerGAM  *gamDef     // the GAM whose input carries Frequency
	frequency string      // the Frequency as written
	freqPos   Pos
}

// writes are the values the threads of the imported state write into a
// datasource signal: the last thread's (the threads before it, rare, are
// in importer.earlier).
type writes struct {
	t *threadState // the last thread that writes it
	o *origin      // the value it writes last
}

// resolveThread follows the data through the thread's GAMs in order.
func (im *importer) resolveThread(a *application, t *threadState) {
	for _, g := range t.def.gams {
		ins := make([]*origin, g.nInputs())
		for i, s := range g.inputs() {
			im.steps++
			ins[i] = im.resolveInput(a, t, s)
		}
		outs := im.gamOutputs(a, t, g, ins)
		for i, s := range g.outputs() {
			im.steps++
			if s.sig == nil {
				im.errorf(s.node().Pos(), "%s: DataSource %q: no datasource of that name in %s.+Data", s, s.dsName(a), a.obj.path)
				continue
			}
			w := &s.sig.written
			if w.t != nil && w.t != t {
				if im.earlier == nil {
					im.earlier = map[*dsSignal][]*threadState{}
				}
				im.earlier[s.sig] = append(im.earlier[s.sig], w.t)
			}
			w.t, w.o = t, outs[i]
		}
	}
}

// resolveInput returns where the value an input reads comes from.
func (im *importer) resolveInput(a *application, t *threadState, s *gamSignal) *origin {
	if s.unsupp != supported {
		return unfed("%s uses %s, which streamerd does not support", s, s.unsupp)
	}
	if s.sig == nil {
		if name := s.dsName(a); name == "" {
			im.errorf(s.node().Pos(), "%s: no DataSource and no DefaultDataSource in %s.+Data", s, a.obj.path)
		} else {
			im.errorf(s.node().Pos(), "%s: DataSource %q: no datasource of that name in %s.+Data", s, name, a.obj.path)
		}
		return unfed("%s names a datasource that does not exist", s)
	}
	ds := s.sig.ds
	switch ds.kind() {
	case "LinuxTimer":
		return im.timerInput(t, ds, s)
	case "GAMDataSource":
		if w := s.sig.written; w.t == t {
			return w.o
		}
		if writer := s.sig.writer; writer != nil {
			if writer.thread == t.def {
				return unfed("%s reads %s.%s before %s writes it in the cycle (MARTe2 passes the previous cycle's value); streamerd has no one-cycle delay", s.gam.path, ds.path, s.alias(), writer.path)
			}
			return unfed("%s reads %s.%s, which %s writes in another thread or state", s.gam.path, ds.path, s.alias(), writer.path)
		}
		return unfed("nothing writes %s.%s", ds.path, s.alias())
	}
	if im.mapsTo(ds) != "" {
		return unfed("%s reads %s, an output datasource", s, ds.path)
	}
	return unfed("%s comes from %s (%s), which is not imported", s, ds.path, ds.class)
}

// timerInput resolves a read of a LinuxTimer signal. LinuxTimer knows its
// signals by position: Counter, Time, AbsoluteTime, DeltaTime, TrigRephase.
func (im *importer) timerInput(t *threadState, ds *dataSource, s *gamSignal) *origin {
	if f := s.node().Leaf("Frequency"); !f.IsZero() {
		text, _ := f.Value().Text()
		switch {
		case t.timer != nil && t.timer != ds:
			im.errorf(f.Pos(), "%s: Frequency: thread %s is already paced by %s", s, t.def.path, t.timer.path)
		case t.timer == nil:
			t.timer, t.timerGAM, t.frequency, t.freqPos = ds, s.gam, text, f.Pos()
		}
	}
	switch i := ds.index(s.alias()); i {
	case 0:
		return &origin{kind: originCounter, thread: t, gam: s.gam}
	case 1:
		return &origin{kind: originTime, thread: t, gam: s.gam}
	default:
		names := []string{"Counter", "Time", "AbsoluteTime", "DeltaTime", "TrigRephase"}
		what := "signal " + s.alias()
		if i < len(names) {
			what = names[i] + " (" + s.alias() + ")"
		}
		return unfed("%s reads LinuxTimer %s, which streamerd's timer does not provide (only Counter and Time)", s, what)
	}
}

// gamOutputs returns the origin of each output of g, given its inputs'.
func (im *importer) gamOutputs(a *application, t *threadState, g *gamDef, ins []*origin) []*origin {
	outs := make([]*origin, g.nOutputs())
	fill := func(o *origin) {
		for i := range outs {
			im.steps++
			outs[i] = o
		}
	}
	for _, s := range g.outputs() {
		im.steps++
		if s.unsupp != supported {
			fill(unfedBy(g, "%s uses %s, which streamerd does not support", s, s.unsupp))
			return outs
		}
	}
	switch g.kind() {
	case "IOGAM":
		im.ioGAM(a, g, ins, outs)
	case "WaveformSin", "WaveformChirp":
		fill(im.waveform(a, t, g, ins))
	case "ConstantGAM":
		for i, s := range g.outputs() {
			im.steps++
			outs[i] = im.constant(a, t, g, s)
		}
	default:
		why := fmt.Sprintf("%s (%s) has no streamerd equivalent", g.path, g.class)
		if g.class == "" {
			why = g.path.String() + " has no Class"
		}
		fill(unfedBy(g, "%s", why))
	}
	return outs
}

// ioGAM passes each input's origin to the output in the same position
// when they have the same type and element count (the IOGAM copies
// bytes, so the value is unchanged).
func (im *importer) ioGAM(a *application, g *gamDef, ins, outs []*origin) {
	if g.nInputs() != g.nOutputs() {
		o := unfedBy(g, "%s copies %d inputs into %d outputs; streamerd maps an IOGAM signal by signal", g.path, g.nInputs(), g.nOutputs())
		for i := range outs {
			im.steps++
			outs[i] = o
		}
		return
	}
	var lastIn, lastOut *origin // inputs that read the same value share what comes out
	var lastHop *hop
	for i, out := range g.outputs() {
		im.steps++
		in := g.input(i)
		ti, ni := a.signalShape(in)
		to, no := a.signalShape(out)
		if ti != to || ni != no {
			outs[i] = unfedBy(g, "%s copies %s %s[%d] into %s %s[%d]: the bytes are reinterpreted, which streamerd does not do", g.path, in.name(), ti, ni, out.name(), to, no)
			continue
		}
		if ins[i] != lastIn {
			lastIn, lastOut = ins[i], ins[i].through(g, &lastHop)
		}
		outs[i] = lastOut
	}
}

// signalShape returns the type and element count of a GAM signal: its own,
// or its datasource's declaration.
func (a *application) signalShape(s *gamSignal) (string, int) {
	typ, n := s.typ(), int(s.elems)
	if d := s.sig; d != nil {
		if typ == "" {
			typ = d.typ()
		}
		if n == 0 {
			n = int(d.elems)
		}
	}
	if n == 0 {
		n = 1
	}
	return typ, n
}

// timerSignal returns the Timer output of a Counter or Time origin.
func (o *origin) timerSignal() string {
	if o.kind == originCounter {
		return "Counter"
	}
	return "Time"
}

// describe returns a short account of where a value comes from, for
// messages.
func (o *origin) describe() string {
	if o.kind == originUnfed {
		return o.why()
	}
	var b strings.Builder
	o.describeTo(&b)
	return b.String()
}

// describeTo writes what describe returns.
func (o *origin) describeTo(w textSink) {
	switch o.kind {
	case originCounter, originTime:
		o.thread.timer.path.write(w)
		w.WriteByte(' ')
		w.WriteString(o.timerSignal())
	case originWave, originConst:
		o.gam.path.write(w)
		if o.kind == originConst {
			w.WriteByte('.')
			w.WriteString(o.out.name())
		}
	default:
		w.WriteString(o.why())
		return
	}
	if o.via != nil {
		w.WriteString(" → ")
		o.via.write(w)
	}
}
