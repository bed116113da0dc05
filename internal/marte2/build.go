package marte2

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// sink is a datasource streamerd imports as a producer, with the origin of
// each of its signals in the imported state.
type sink struct {
	ds      *dataSource
	class   string       // streamerd class: FlatUDP or UDPStreamer
	thread  *threadState // the thread whose GAMs write it
	origins []*origin    // per signal; nil when nothing writes it
}

// mapsTo returns the streamerd class of an output datasource, or "".
func (im *importer) mapsTo(ds *dataSource) string {
	switch ds.kind() {
	case "UDPSender":
		return "FlatUDP"
	case "UDPStreamer":
		return "UDPStreamer"
	}
	return ""
}

// findSinks returns the imported datasources that the state writes.
func (im *importer) findSinks(a *application, st *state, threads []*threadState) []*sink {
	var sinks []*sink
	for _, ds := range a.sources {
		class := im.mapsTo(ds)
		if class == "" {
			continue
		}
		sk := &sink{ds: ds, class: class, origins: make([]*origin, len(ds.signals))}
		for i, s := range ds.signals {
			w := s.written
			if w.t == nil {
				continue
			}
			earlier := im.earlier[s]
			for i := 0; i <= len(earlier); i++ {
				im.steps++
				t := w.t
				if i < len(earlier) {
					t = earlier[i]
				}
				if sk.thread != nil && sk.thread != t {
					im.errorf(ds.node.Pos(), "%s is written by threads %s and %s; streamerd synchronises a datasource from one thread", ds.path, shortName(sk.thread.def.name()), shortName(t.def.name()))
				}
				sk.thread = t
			}
			sk.origins[i] = w.o
		}
		if sk.thread == nil {
			im.skip(ds.node.Pos(), ds.path.String(), ds.class, "no GAM of state %s writes it", shortName(st.name()))
			continue
		}
		if sk.thread.timer == nil {
			im.threadWithoutTimer(sk)
			continue
		}
		sinks = append(sinks, sk)
	}
	return sinks
}

func (im *importer) threadWithoutTimer(sk *sink) {
	t := sk.thread.def
	msg := fmt.Sprintf("thread %s, which writes %s, reads no LinuxTimer signal with a Frequency; a streamerd thread runs at a period", t.path, sk.ds.path)
	if im.opt.Partial {
		im.skip(sk.ds.node.Pos(), sk.ds.path.String(), sk.ds.class, "%s", msg)
		return
	}
	im.errorf(t.node.Pos(), "%s", msg)
}

// build maps the resolved state onto the streamerd configuration.
func (im *importer) build(a *application, st *state, threads []*threadState) *outConfig {
	c := &outConfig{}
	sinks := im.findSinks(a, st, threads)
	b := &builder{im: im, a: a, c: c, names: map[string]bool{}}
	for _, sk := range sinks {
		b.source(sk)
	}
	// The GAMs of each thread, in creation order: a stable sort by thread
	// keeps that order within each.
	slices.SortStableFunc(c.gams, func(x, y *outGAM) int { return x.o.thread.index - y.o.thread.index })
	for i, j := 0, 0; i < len(threads); i++ {
		k := j
		for k < len(c.gams) && c.gams[k].o.thread == threads[i] {
			im.steps++
			k++
		}
		b.thread(threads[i], c.gams[j:k:k])
		j = k
	}
	c.gams = c.gams[:0]
	for _, t := range c.threads {
		c.gams = append(c.gams, t.gams...)
	}
	if len(c.threads) == 0 && len(im.errs) == 0 {
		im.errorf(st.node.Pos(), "%s: nothing to import: no UDPSender or UDPStreamer datasource is written in this state", st.path)
	}
	im.noteGAMs(a, st)
	im.noteSources(a, sinks, threads)
	im.noteObjects(a)
	c.app = im.appTable(a)
	return c
}

// appTable writes the [App] table: the HTTP address, which MARTe2 has no
// equivalent of.
func (im *importer) appTable(a *application) table {
	t := table{pos: a.obj.node.Pos()}
	addr := im.httpAddress()
	t.comments = []string{"HTTP (metrics, status, operator control) " + im.httpText()}
	t.set("HTTPAddress", tomlString(addr), "")
	im.maps(a.obj.node.Pos(), a.obj.path.String(), a.obj.class, "→ [App] HTTPAddress = %s: HTTP (metrics, status, control) %s", tomlString(addr), im.httpText())
	return t
}

// httpAddress returns the App.HTTPAddress to write.
func (im *importer) httpAddress() string {
	switch {
	case im.opt.NoHTTP:
		return ""
	case im.opt.HTTPAddress != "":
		return im.opt.HTTPAddress
	}
	return DefaultHTTPAddress
}

// httpText says what the HTTP address written means.
func (im *importer) httpText() string {
	switch addr := im.httpAddress(); addr {
	case "":
		return "off"
	case DefaultHTTPAddress:
		return "on a free loopback port picked when streamerd starts and named in its log (\"HTTP listening\"); -http host:port at import fixes one"
	default:
		return "on " + addr
	}
}

// builder collects the streamerd tables.
type builder struct {
	im    *importer
	a     *application
	c     *outConfig
	names map[string]bool // streamerd GAM names taken
}

// source writes the [[DataSources]] table of a sink and the outputs that
// feed its signals.
func (b *builder) source(sk *sink) {
	ds := sk.ds
	s := &outSource{ds: ds}
	s.pos = ds.node.Pos()
	s.comments = []string{fmt.Sprintf("%s (%s), %s:%d: written by thread %s", ds.path, ds.class, b.im.file, ds.node.Pos().Line, sk.thread.def.name())}
	s.set("Name", tomlString(ds.name()), "")
	s.set("Class", tomlString(sk.class), "")
	if sk.class == "FlatUDP" {
		b.im.flatParams(ds, &s.table)
	} else {
		b.im.udpsParams(ds, &s.table)
	}
	for i, sig := range ds.signals {
		b.im.steps++
		if sk.class == "FlatUDP" && sig.node().IsZero() && sig.first != nil {
			// UDPSender locks its Signals: a GAM may not add one.
			b.im.errorf(sig.first.node().Pos(), "%s writes %s.%s, which the UDPSender does not declare in its Signals (MARTe2 refuses: the UDPSender's signals are locked)", sig.first.gam.path, ds.path, sig.name())
		}
		b.signal(sk, sig, sk.origins[i])
	}
	b.c.sources = append(b.c.sources, s)
}

// signal makes one [[DataSources.Signals]] table into out and routes its
// origin.
func (b *builder) signal(sk *sink, sig *dsSignal, o *origin) {
	pos := sig.pos()
	typ := b.im.signalType(sig, pos, sk.class)
	elems, dims := int(sig.elems), int(sig.dims)
	if elems == 0 {
		elems = 1
	}
	if o != nil && o.kind == originConst && o.value.text != nil && typ != "char8" {
		o = unfed("%s is text, and a %s has no char8 type (streamerd sends text with FlatUDP, from a UDPSender)", o.describe(), sk.class)
	}
	switch {
	case o == nil:
	case o.kind == originUnfed:
		b.im.reached(o)
		if b.im.opt.Partial {
			b.im.approx(pos, sig.path(), "", "not fed, stays zero: %s", o.reason)
		} else {
			b.im.errorf(pos, "%s is unfed: %s (-import-marte2-partial keeps it, at zero)", sig, o.reason)
		}
	default:
		if (o.kind == originCounter || o.kind == originTime) && typ != "uint32" {
			if typ == "int32" && elems == 1 {
				b.im.approx(pos, sig.path(), "", "int32 in MARTe2; streamerd's Timer writes uint32 (the same bytes below 2^31)")
				typ = "uint32"
			} else {
				b.im.errorf(pos, "%s is %s[%d], fed by a LinuxTimer signal; streamerd's Timer writes uint32 scalars", sig, typ, elems)
			}
		}
		b.route(sig, o)
	}
	sig.written.o = o // what the table says feeds it
	sig.sent = sentType(typ)
	var more table
	if dims == 2 && sk.class == "UDPStreamer" && !sig.node().IsZero() && !sig.node().Leaf("Rows").IsZero() {
		more.set("NumberOfDimensions", "2", "")
		more.set("Rows", tomlInt(int64(b.im.count(sig.node(), "Rows"))), "")
		more.set("Cols", tomlInt(int64(b.im.count(sig.node(), "Cols"))), "")
	} else if elems > 1 || dims > 0 {
		if dims == 2 {
			b.im.approx(pos, sig.path(), "", "a MARTe2 matrix of %d elements is sent as an array of %d elements: the same bytes, in the same order", elems, elems)
		}
		more.set("NumberOfDimensions", "1", "")
		more.set("NumberOfElements", tomlInt(int64(elems)), "")
	}
	if !sig.node().IsZero() {
		b.im.signalParams(sk.class, sig, &more)
	}
	if len(more.keys) > 0 || len(more.comments) > 0 {
		m := more // a copy: more itself stays on the stack
		m.pos = pos
		if b.im.more == nil {
			b.im.more = map[*dsSignal]*table{}
		}
		b.im.more[sig] = &m
	}
}

// signalType returns the streamerd type of a datasource signal of a
// datasource of the streamerd class: char8 is text for FlatUDP, its bytes
// as uint8 for a UDPStreamer.
func (im *importer) signalType(sig *dsSignal, pos Pos, class string) string {
	switch {
	case isNumericType(sig.typ()):
		return sig.typ()
	case sig.typ() == "char8" && class == "FlatUDP":
		return "char8"
	case sig.typ() == "char8" || sig.typ() == "bool":
		im.approx(pos, sig.path(), "", "%s is sent as uint8: the same byte", sig.typ())
		return "uint8"
	case sig.typ() == "":
		im.errorf(pos, "%s has no Type (neither the datasource nor a GAM gives one)", sig)
	default:
		im.errorf(pos, "%s has type %q; streamerd sends uint8..uint64, int8..int64, float32 and float64", sig, sig.typ())
	}
	return "uint8"
}

// route adds the output that writes sig to the streamerd GAM that
// produces o, creating the GAM the first time: one Timer per thread, one
// Waveform per WaveformGAM, one per ConstantGAM output.
func (b *builder) route(sig *dsSignal, o *origin) {
	t := o.thread
	var made **outGAM
	src := o.gam
	switch o.kind {
	case originCounter, originTime:
		if t.timerGAM != nil {
			src = t.timerGAM
		}
		made = &t.timerOut
	case originWave:
		made = &b.im.waves[o.gam].out
	case originConst:
		made = &o.value.made
	}
	b.im.reached(o)
	if *made == nil {
		*made = b.newGAM(t, src, o, sig)
		return
	}
	g := *made
	if g.more == nil {
		g.more = &[]outOutput{}
	}
	*g.more = append(*g.more, outOutput{sig: sig, o: o})
}

// newGAM creates the streamerd GAM for the origin o, named after the
// MARTe2 GAM src, and says what src became.
func (b *builder) newGAM(t *threadState, src *gamDef, o *origin, first *dsSignal) *outGAM {
	name := gamName(src.qname())
	if o.kind == originConst && src.nOutputs() > 1 {
		name += "_" + gamName(o.out.name())
	}
	// A name without '_' is the GAM's qualified name, unique in
	// +Functions: only the others can clash, and are kept in names.
	if strings.Contains(name, "_") || b.names[name] {
		for base, i := name, 2; b.names[name]; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		b.names[name] = true
	}
	order := len(t.def.gams)
	if src.thread == t.def {
		order = int(src.order)
	}
	g := &outGAM{name: name, order: int32(order), src: src, o: o, first: first, prev: src.made}
	src.made = g
	b.c.gams = append(b.c.gams, g)
	return g
}

// used returns what the MARTe2 GAM g became, for its note, from the
// streamerd GAMs made from it in order: a Timer or a Waveform says it
// afresh, a constant adds itself; "" when none was made.
func (im *importer) used(g *gamDef) string {
	var made []*outGAM
	for m := g.made; m != nil; m = m.prev {
		made = append(made, m)
	}
	var b strings.Builder
	for i := len(made) - 1; i >= 0; i-- {
		m := made[i]
		switch m.o.kind {
		case originCounter, originTime:
			b.Reset()
			b.WriteString("its LinuxTimer reads become GAM " + m.name + " (Timer)")
		case originWave:
			b.Reset()
			b.WriteString("GAM " + m.name + " (Waveform sine, TimeInput = \"Time\")")
			if im.waves[g].chirp {
				b.WriteString(": Frequency1 = Frequency2, a sine")
			}
		case originConst:
			what := "Waveform constant"
			if m.o.value.text != nil {
				what = "Text"
			}
			if b.Len() == 0 {
				b.WriteString("GAM " + m.name + " (" + what + ")")
			} else {
				b.WriteString(", GAM " + m.name)
			}
		}
	}
	return b.String()
}

// render prints the configuration as TOML, and where each line comes
// from: once to count the bytes and the sources, once to write them into
// memory allocated at its size.
func (im *importer) render(c *outConfig, a *application, st *state) ([]byte, lineSources, int) {
	var count writer
	im.write(&count, c, a, st)
	w := writer{write: true, text: make([]byte, 0, count.n)}
	w.sources.write = true
	w.sources.s = lineSources{data: make([]byte, 0, count.sources.size), marks: make([]sourceMark, 0, (count.sources.n+sourceBlock-1)/sourceBlock)}
	im.checkpoint()
	im.write(&w, c, a, st)
	return w.text, w.sources.s, w.line
}

// write prints the configuration into w; the header comments come from
// the application.
func (im *importer) write(w *writer, c *outConfig, a *application, st *state) {
	im.writeHeader(w, a, st)
	w.section("", "[App]", &c.app)
	for _, t := range c.threads {
		w.section("", "[[Threads]]", &t.table)
		w.begin(t.functions)
		w.WriteString("GAMs = [")
		for i, g := range t.gams {
			if i > 0 {
				w.WriteString(", ")
			}
			writeTOMLString(w, g.name)
		}
		w.WriteString("]\n")
	}
	for _, g := range c.gams {
		im.writeGAM(w, g)
		for out := range g.outputs() {
			im.writeOutput(w, out)
		}
	}
	for _, s := range c.sources {
		w.section("", "[[DataSources]]", &s.table)
		for _, sig := range s.ds.signals {
			im.writeSignal(w, sig)
		}
	}
}

// writeGAM prints the [[GAMs]] table of g.
func (im *importer) writeGAM(w *writer, g *outGAM) {
	src, o, t := g.src, g.o, g.o.thread
	pos := src.node.Pos()
	w.print(pos, "")
	cs := w.beginComment(pos, "")
	src.path.write(cs)
	cs.WriteString(" (")
	cs.WriteString(src.class)
	cs.WriteString("), ")
	cs.WriteString(im.file)
	cs.WriteByte(':')
	w.int(int64(pos.Line))
	w.WriteByte('\n')
	if o.kind == originCounter || o.kind == originTime {
		cs := w.beginComment(pos, "")
		cs.WriteString("reads ")
		t.timer.path.write(cs)
		cs.WriteString(": Counter and Time of thread ")
		cs.WriteString(shortName(t.def.name()))
		w.WriteByte('\n')
	}
	w.print(pos, "[[GAMs]]")
	w.keyString(pos, "", "Name", g.name)
	switch o.kind {
	case originCounter, originTime:
		w.keyString(pos, "", "Class", "Timer")
	case originWave:
		wv := im.waves[src]
		w.keyString(pos, "", "Class", "Waveform")
		w.keyString(pos, "", "Waveform", "sine")
		w.key(pos, "", "Amplitude", tomlFloat(wv.amplitude), "")
		w.key(pos, "", "Frequency", tomlFloat(wv.frequency), "Hz")
		w.key(pos, "", "Offset", tomlFloat(wv.offset), "")
		w.key(pos, "", "Phase", tomlFloat(wv.phase), "radians")
		w.key(pos, "", "TimeInput", `"Time"`, "evaluated at the LinuxTimer Time, as MARTe2's WaveformGAM")
	case originConst:
		at := o.out.node().Leaf("Default").Value().Pos()
		if o.value.text != nil {
			w.keyString(pos, "", "Class", "Text")
			w.begin(at)
			w.WriteString("Text = ")
			writeTOMLString(w, *o.value.text)
		} else {
			w.keyString(pos, "", "Class", "Waveform")
			w.keyString(pos, "", "Waveform", "constant")
			w.begin(at)
			w.WriteString("Offset = ")
			w.WriteString(tomlFloat(o.value.num))
		}
		w.WriteString("  # ")
		cs := commentSink{w}
		cs.WriteString("Default of ")
		cs.WriteString(o.out.name())
		w.WriteByte('\n')
	}
}

// writeOutput prints a [[GAMs.Outputs]] table.
func (im *importer) writeOutput(w *writer, out outOutput) {
	pos, o := out.sig.pos(), out.o
	w.print(pos, "")
	if o.via != nil {
		cs := w.beginComment(pos, "  ")
		cs.WriteString("via ")
		o.via.write(cs)
		w.WriteByte('\n')
	}
	w.print(pos, "  [[GAMs.Outputs]]")
	signal := "Out"
	if o.kind == originCounter || o.kind == originTime {
		signal = o.timerSignal()
	}
	w.keyString(pos, "  ", "Signal", signal)
	w.keyString(pos, "  ", "DataSource", out.sig.ds.name())
	if out.sig.name() != signal {
		w.keyString(pos, "  ", "Alias", out.sig.name())
	}
}

// writeSignal prints a [[DataSources.Signals]] table.
func (im *importer) writeSignal(w *writer, sig *dsSignal) {
	pos, o := sig.pos(), sig.written.o
	w.print(pos, "")
	cs := w.beginComment(pos, "  ")
	switch {
	case o == nil:
		cs.WriteString("nothing writes it in this state: it stays zero, as in MARTe2")
	case o.kind == originUnfed:
		cs.WriteString("not fed (stays zero): ")
		cs.WriteString(o.why())
	default:
		cs.WriteString("from ")
		o.describeTo(cs)
	}
	w.WriteByte('\n')
	more := im.more[sig]
	if more != nil {
		for _, l := range more.comments {
			w.comment(pos, "  ", l)
		}
	}
	w.print(pos, "  [[DataSources.Signals]]")
	w.keyString(pos, "  ", "Name", sig.name())
	w.keyString(pos, "  ", "Type", sentTypes[sig.sent])
	if more != nil {
		w.keys("  ", more)
	}
}

// gamName makes a MARTe2 name a valid streamerd GAM name (no '.' or
// spaces).
func gamName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '.' || r == ' ' || r == '\t' || r < ' ' {
			return '_'
		}
		return r
	}, s)
	if s == "" {
		return "GAM"
	}
	return s
}
