package marte2

import (
	"fmt"
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
	switch ds.kind {
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
			for _, t := range append(w.earlier, w.t) {
				im.steps++
				if sk.thread != nil && sk.thread != t {
					im.errorf(ds.node.Pos(), "%s is written by threads %s and %s; streamerd synchronises a datasource from one thread", ds.path, shortName(sk.thread.def.name), shortName(t.def.name))
				}
				sk.thread = t
			}
			sk.origins[i] = w.o
		}
		if sk.thread == nil {
			im.skip(ds.node.Pos(), ds.path.String(), ds.class, "no GAM of state %s writes it", shortName(st.name))
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
	b := &builder{im: im, a: a, c: c, gamByKey: map[gamKey]*outGAM{}, used: map[*gamDef]string{}, names: map[string]bool{}}
	for _, sk := range sinks {
		b.source(sk)
	}
	byThread := map[*threadState][]*outGAM{}
	for _, g := range c.gams {
		im.steps++
		byThread[g.thread] = append(byThread[g.thread], g)
	}
	for _, t := range threads {
		b.thread(t, byThread[t])
	}
	c.gams = c.gams[:0]
	for _, t := range c.threads {
		c.gams = append(c.gams, t.gams...)
	}
	if len(c.threads) == 0 && len(im.errs) == 0 {
		im.errorf(st.node.Pos(), "%s: nothing to import: no UDPSender or UDPStreamer datasource is written in this state", st.path)
	}
	im.noteGAMs(a, st, b.used)
	im.noteSources(a, sinks, threads)
	im.noteObjects(a)
	c.app = im.appTable(a)
	c.header = im.header(a, st)
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

// gamKey says which streamerd GAM produces an origin: one Timer per
// thread, one Waveform per WaveformGAM, one per ConstantGAM output.
type gamKey struct {
	kind   originKind
	thread *threadDef
	gam    *gamDef
	out    *gamSignal
}

// builder collects the streamerd tables.
type builder struct {
	im       *importer
	a        *application
	c        *outConfig
	gamByKey map[gamKey]*outGAM
	used     map[*gamDef]string // MARTe2 GAM → what it became
	names    map[string]bool    // streamerd GAM names taken
}

// source writes the [[DataSources]] table of a sink and the outputs that
// feed its signals.
func (b *builder) source(sk *sink) {
	ds := sk.ds
	s := &outSource{name: ds.name}
	s.pos = ds.node.Pos()
	s.comments = []string{fmt.Sprintf("%s (%s), %s:%d: written by thread %s", ds.path, ds.class, b.im.file, ds.node.Pos().Line, sk.thread.def.name)}
	s.set("Name", tomlString(ds.name), "")
	s.set("Class", tomlString(sk.class), "")
	if sk.class == "FlatUDP" {
		b.im.flatParams(ds, &s.table)
	} else {
		b.im.udpsParams(ds, &s.table)
	}
	for i, sig := range ds.signals {
		b.im.steps++
		if sk.class == "FlatUDP" && sig.node.IsZero() && len(sig.refs) > 0 {
			// UDPSender locks its Signals: a GAM may not add one.
			b.im.errorf(sig.refs[0].node.Pos(), "%s writes %s.%s, which the UDPSender does not declare in its Signals (MARTe2 refuses: the UDPSender's signals are locked)", sig.refs[0].gam.path, ds.path, sig.name)
		}
		s.signals = append(s.signals, b.signal(sk, sig, sk.origins[i]))
	}
	b.c.sources = append(b.c.sources, s)
}

// signal writes one [[DataSources.Signals]] table and routes its origin.
func (b *builder) signal(sk *sink, sig *dsSignal, o *origin) table {
	pos := sig.pos()
	t := table{pos: pos}
	path := sig.ds.path.show("Signals", sig.name)
	typ := b.im.signalType(sig, pos, path, sk.class)
	elems, dims := sig.elems, sig.dims
	if elems == 0 {
		elems = 1
	}
	if o != nil && o.kind == originConst && b.im.isText(o) && typ != "char8" {
		o = unfed("%s is text, and a %s has no char8 type (streamerd sends text with FlatUDP, from a UDPSender)", o.describe(), sk.class)
	}
	switch {
	case o == nil:
		t.comments = append(t.comments, "nothing writes it in this state: it stays zero, as in MARTe2")
	case o.kind == originUnfed:
		b.im.unfed = append(b.im.unfed, o)
		if b.im.opt.Partial {
			t.comments = append(t.comments, "not fed (stays zero): "+o.why)
			b.im.approx(pos, path, "", "not fed, stays zero: %s", o.why)
		} else {
			b.im.errorf(pos, "%s is unfed: %s (-import-marte2-partial keeps it, at zero)", path, o.why)
		}
	default:
		if (o.kind == originCounter || o.kind == originTime) && typ != "uint32" {
			if typ == "int32" && elems == 1 {
				b.im.approx(pos, path, "", "int32 in MARTe2; streamerd's Timer writes uint32 (the same bytes below 2^31)")
				typ = "uint32"
			} else {
				b.im.errorf(pos, "%s is %s[%d], fed by a LinuxTimer signal; streamerd's Timer writes uint32 scalars", path, typ, elems)
			}
		}
		t.comments = append(t.comments, "from "+o.describe())
		b.route(sk, sig, o)
	}
	t.set("Name", tomlString(sig.name), "")
	t.set("Type", tomlString(typ), "")
	if dims == 2 && sk.class == "UDPStreamer" && !sig.node.IsZero() && !sig.node.Leaf("Rows").IsZero() {
		t.set("NumberOfDimensions", "2", "")
		t.set("Rows", tomlInt(int64(b.im.count(sig.node, "Rows"))), "")
		t.set("Cols", tomlInt(int64(b.im.count(sig.node, "Cols"))), "")
	} else if elems > 1 || dims > 0 {
		if dims == 2 {
			b.im.approx(pos, path, "", "a MARTe2 matrix of %d elements is sent as an array of %d elements: the same bytes, in the same order", elems, elems)
		}
		t.set("NumberOfDimensions", "1", "")
		t.set("NumberOfElements", tomlInt(int64(elems)), "")
	}
	if !sig.node.IsZero() {
		b.im.signalParams(sk.class, sig, &t, path)
	}
	return t
}

// signalType returns the streamerd type of a datasource signal of a
// datasource of the streamerd class: char8 is text for FlatUDP, its bytes
// as uint8 for a UDPStreamer.
func (im *importer) signalType(sig *dsSignal, pos Pos, path, class string) string {
	switch {
	case isNumericType(sig.typ):
		return sig.typ
	case sig.typ == "char8" && class == "FlatUDP":
		return "char8"
	case sig.typ == "char8" || sig.typ == "bool":
		im.approx(pos, path, "", "%s is sent as uint8: the same byte", sig.typ)
		return "uint8"
	case sig.typ == "":
		im.errorf(pos, "%s has no Type (neither the datasource nor a GAM gives one)", path)
	default:
		im.errorf(pos, "%s has type %q; streamerd sends uint8..uint64, int8..int64, float32 and float64", path, sig.typ)
	}
	return "uint8"
}

// isText reports whether o is the text of a char8 ConstantGAM output.
func (im *importer) isText(o *origin) bool {
	_, ok := im.texts[o.out]
	return ok
}

// route adds the output that writes sig to the streamerd GAM that
// produces o, creating the GAM the first time.
func (b *builder) route(sk *sink, sig *dsSignal, o *origin) {
	t := o.thread
	var k gamKey
	var signal string
	var src *gamDef
	switch o.kind {
	case originCounter, originTime:
		src = t.timerGAM
		if src == nil {
			src = o.gam
		}
		k, signal = gamKey{kind: originCounter, thread: t.def}, o.timerSignal()
	case originWave:
		src, k, signal = o.gam, gamKey{kind: originWave, gam: o.gam}, "Out"
	case originConst:
		src, k, signal = o.gam, gamKey{kind: originConst, gam: o.gam, out: o.out}, "Out"
	}
	b.im.routes = append(b.im.routes, o)
	g := b.gamByKey[k]
	if g == nil {
		g = b.newGAM(t, src, o)
		b.gamByKey[k] = g
	}
	out := table{pos: sig.pos()}
	out.set("Signal", tomlString(signal), "")
	out.set("DataSource", tomlString(sk.ds.name), "")
	if sig.name != signal {
		out.set("Alias", tomlString(sig.name), "")
	}
	if o.via != nil {
		out.comments = append(out.comments, "via "+o.via.viaText())
	}
	g.outputs = append(g.outputs, out)
}

// newGAM creates the streamerd GAM for the origin o, named after the
// MARTe2 GAM src.
func (b *builder) newGAM(t *threadState, src *gamDef, o *origin) *outGAM {
	name := gamName(src.qname)
	if o.kind == originConst && len(src.outputs) > 1 {
		name += "_" + gamName(o.out.name)
	}
	for base, i := name, 2; b.names[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	b.names[name] = true
	order := len(t.def.gams)
	if src.thread == t.def {
		order = src.order
	}
	g := &outGAM{name: name, thread: t, order: order}
	g.pos = src.node.Pos()
	g.comments = []string{fmt.Sprintf("%s (%s), %s:%d", src.path, src.class, b.im.file, src.node.Pos().Line)}
	g.set("Name", tomlString(name), "")
	switch o.kind {
	case originCounter, originTime:
		g.set("Class", tomlString("Timer"), "")
		g.comments = append(g.comments, fmt.Sprintf("reads %s: Counter and Time of thread %s", t.timer.path, shortName(t.def.name)))
		b.used[src] = "its LinuxTimer reads become GAM " + name + " (Timer)"
	case originWave:
		w := b.im.waves[src]
		g.set("Class", tomlString("Waveform"), "")
		g.set("Waveform", tomlString("sine"), "")
		g.set("Amplitude", tomlFloat(w.amplitude), "")
		g.set("Frequency", tomlFloat(w.frequency), "Hz")
		g.set("Offset", tomlFloat(w.offset), "")
		g.set("Phase", tomlFloat(w.phase), "radians")
		g.set("TimeInput", tomlString("Time"), "evaluated at the LinuxTimer Time, as MARTe2's WaveformGAM")
		b.used[src] = "GAM " + name + " (Waveform sine, TimeInput = \"Time\")"
		if w.chirp {
			b.used[src] += ": Frequency1 = Frequency2, a sine"
		}
	case originConst:
		what := "Waveform constant"
		if text, ok := b.im.texts[o.out]; ok {
			what = "Text"
			g.set("Class", tomlString("Text"), "")
			g.setAt(o.out.node.Leaf("Default").Value().Pos(), "Text", tomlString(text), "Default of "+o.out.name)
		} else {
			g.set("Class", tomlString("Waveform"), "")
			g.set("Waveform", tomlString("constant"), "")
			g.setAt(o.out.node.Leaf("Default").Value().Pos(), "Offset", tomlFloat(b.im.consts[o.out]), "Default of "+o.out.name)
		}
		if b.used[src] == "" {
			b.used[src] = "GAM " + name + " (" + what + ")"
		} else {
			b.used[src] += ", GAM " + name
		}
	}
	b.c.gams = append(b.c.gams, g)
	return g
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
