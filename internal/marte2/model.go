package marte2

import (
	"fmt"
	"iter"
	"strings"
)

// application is the RealTimeApplication read from the tree: its GAMs
// (+Functions flattened, in declaration order), its datasources (+Data)
// and its states.
type application struct {
	obj       object
	gams      []*gamDef
	gamByName map[string]*gamDef   // by qualified name: "GAM" or "Group.GAM"
	groups    map[string]*gamGroup // by group name ("Group", "Group.Sub")
	sources   []*dataSource
	dsByName  map[string]*dataSource
	defaultDS string
	states    []*state
	scheduler *object
	others    []object // objects of the application that are none of the above
}

// object is a MARTe2 object: a block named +Name or $Name with a Class.
type object struct {
	node  Node
	path  *objPath // $App.+Functions.+GAM1
	class string   // as written: "WaveformGAM::WaveformSin"
}

func newObject(n Node, parent *objPath) object {
	o := object{node: n, path: parent.child(n.Name())}
	if c := n.Leaf("Class"); !c.IsZero() {
		o.class, _ = c.Value().Text()
	}
	return o
}

// name returns the object's name without its prefix.
func (o *object) name() string { return bareName(o.path.name) }

// kind returns the class without its library: "WaveformSin".
func (o *object) kind() string {
	if i := strings.LastIndex(o.class, "::"); i >= 0 {
		return o.class[i+2:]
	}
	return o.class
}

// gamDef is one GAM with its signals, and what the import made of it.
type gamDef struct {
	object
	sigs   []gamSignal // its inputs, then its outputs
	thread *threadDef  // the thread of the imported state that runs it, or nil
	made   *outGAM     // the last streamerd GAM made from it (importer.used), or nil
	nIn    int32       // inputs
	listed int32       // the last thread (index + 1 in its state) whose Functions named it (expandThreads)
	order  int32       // its position in its thread
	qlen   uint8       // elements of its qualified name: its groups and itself
	folded bool        // a value passed through it into an imported signal
}

// inputs and outputs yield the GAM's signals, numbered from 0.
func (g *gamDef) inputs() iter.Seq2[int, *gamSignal]  { return g.signals(0, int(g.nIn)) }
func (g *gamDef) outputs() iter.Seq2[int, *gamSignal] { return g.signals(int(g.nIn), len(g.sigs)) }

func (g *gamDef) signals(from, to int) iter.Seq2[int, *gamSignal] {
	return func(yield func(int, *gamSignal) bool) {
		for i := from; i < to; i++ {
			if !yield(i-from, &g.sigs[i]) {
				return
			}
		}
	}
}

func (g *gamDef) nInputs() int            { return int(g.nIn) }
func (g *gamDef) nOutputs() int           { return len(g.sigs) - int(g.nIn) }
func (g *gamDef) input(i int) *gamSignal  { return &g.sigs[i] }
func (g *gamDef) output(i int) *gamSignal { return &g.sigs[int(g.nIn)+i] }

// qname returns the GAM's qualified name in +Functions: "GAM1", or
// "Group.GAM1" in a group.
func (g *gamDef) qname() string {
	if g.qlen <= 1 {
		return g.name()
	}
	names := make([]string, g.qlen)
	p := g.path
	for i := len(names) - 1; i >= 0; i-- {
		names[i], p = bareName(p.name), p.up
	}
	return strings.Join(names, ".")
}

// gamSignal is one signal of a GAM's InputSignals or OutputSignals. Its
// DataSource, Alias and Type are read from the tree when needed (a file
// may hold a million signals).
type gamSignal struct {
	gam    *gamDef
	sig    *dsSignal // the datasource signal it names (in its DataSource, or the default); nil when the datasource does not exist
	idx    int32     // its node
	elems  int32     // NumberOfElements, 0 when not given here
	dims   int32     // NumberOfDimensions, -1 when not given here
	input  bool
	unsupp unsupported // a parameter streamerd cannot honour
}

// node returns the signal's definition.
func (s *gamSignal) node() Node { return Node{s.gam.node.t, s.idx} }

// alias returns the datasource's name for the signal: Alias, or its name.
func (s *gamSignal) alias() string {
	if a := text(s.node(), "Alias"); a != "" {
		return a
	}
	return s.name()
}

// typ returns the signal's Type, "" when not given here.
func (s *gamSignal) typ() string { return text(s.node(), "Type") }

// dsName returns the name of the signal's datasource: DataSource, or the
// application's default.
func (s *gamSignal) dsName(a *application) string {
	if d := text(s.node(), "DataSource"); d != "" {
		return d
	}
	return a.defaultDS
}

// unsupported is a parameter of a GAM signal that streamerd cannot honour.
type unsupported uint8

const (
	supported unsupported = iota
	unsuppSamples
	unsuppRanges
)

func (u unsupported) String() string {
	switch u {
	case unsuppSamples:
		return "Samples > 1 (several samples per cycle)"
	case unsuppRanges:
		return "Ranges (a part of the signal)"
	}
	return ""
}

// name returns the GAM's name for the signal.
func (s *gamSignal) name() string { return s.node().Name() }

func (s *gamSignal) String() string { return s.gam.path.show(s.dir(), s.name()) }

// Format writes what String returns.
func (s *gamSignal) Format(f fmt.State, verb rune) {
	if !plainVerb(f, verb) {
		fmt.Fprintf(f, fmt.FormatString(f, verb), s.String())
		return
	}
	s.gam.path.write(stateSink{f}, s.dir(), s.name())
}

func (s *gamSignal) dir() string {
	if s.input {
		return "InputSignals"
	}
	return "OutputSignals"
}

// dataSource is one datasource of +Data with its signals: those declared
// in its Signals block, then those GAMs add by naming them, in the order
// MARTe2 adds them (functions in declaration order, inputs then outputs).
type dataSource struct {
	object
	signals []*dsSignal
	byName  map[string]int32 // index in signals; nil once the threads are resolved
}

type dsSignal struct {
	ds      *dataSource
	first   *gamSignal // the first GAM signal that names it
	writer  *gamDef    // the first GAM (in +Functions order) that writes it
	written writes     // what the threads of the imported state write into it
	idx     int32      // the declaration in Signals; -1 when added by a GAM
	typAt   int32      // the Type leaf that gives its type (declared, or of the first GAM signal with one); -1 when none
	elems   int32      // 0 when not given
	dims    int32      // -1 when not given
	sent    uint8      // an imported signal: its streamerd type, in sentTypes
}

// node returns the signal's declaration in Signals; the zero Node when a
// GAM added it.
func (s *dsSignal) node() Node {
	if s.idx < 0 {
		return Node{}
	}
	return Node{s.ds.node.t, s.idx}
}

// typ returns the signal's Type: declared, or the first GAM's that gives
// one; "" when none does.
func (s *dsSignal) typ() string {
	if s.typAt < 0 {
		return ""
	}
	t, _ := Node{s.ds.node.t, s.typAt}.Value().Text()
	return t
}

// typeLeaf returns the index of n's Type leaf when it gives a type, else -1.
func typeLeaf(n Node) int32 {
	if l := n.Leaf("Type"); !l.IsZero() {
		if t, _ := l.Value().Text(); t != "" {
			return l.i
		}
	}
	return -1
}

// name returns the signal's name: declared, or the first GAM signal's
// Alias or name.
func (s *dsSignal) name() string {
	if s.idx < 0 {
		return s.first.alias()
	}
	return s.ds.node.t.name(s.idx)
}

// path returns the signal's path, for messages.
func (s *dsSignal) path() string { return s.ds.path.show("Signals", s.name()) }

// Format writes the signal's path.
func (s *dsSignal) Format(f fmt.State, verb rune) {
	if !plainVerb(f, verb) {
		fmt.Fprintf(f, fmt.FormatString(f, verb), s.path())
		return
	}
	s.ds.path.write(stateSink{f}, "Signals", s.name())
}

// add appends a signal; a name already there keeps its first signal.
func (d *dataSource) add(s *dsSignal) {
	if d.byName == nil {
		d.byName = map[string]int32{}
	}
	if _, ok := d.byName[s.name()]; !ok {
		d.byName[s.name()] = int32(len(d.signals))
	}
	d.signals = append(d.signals, s)
}

// pos returns where a datasource signal is defined: its declaration, else
// the first GAM signal that names it, else the datasource.
func (s *dsSignal) pos() Pos {
	switch {
	case !s.node().IsZero():
		return s.node().Pos()
	case s.first != nil:
		return s.first.node().Pos()
	}
	return s.ds.node.Pos()
}

func (d *dataSource) signal(name string) *dsSignal {
	if i, ok := d.byName[name]; ok {
		return d.signals[i]
	}
	return nil
}

func (d *dataSource) index(name string) int {
	if i, ok := d.byName[name]; ok {
		return int(i)
	}
	return -1
}

// state is a RealTimeState and its threads.
type state struct {
	object
	threads []*threadDef
}

// threadDef is a RealTimeThread and the GAMs it runs, in order.
type threadDef struct {
	object
	functions Value     // its Functions: names of GAMs and groups
	gams      []*gamDef // the GAMs they name, once each; only in the imported state (expandThreads)
}

// findApplications returns every RealTimeApplication object in the tree,
// at any depth, in file order.
func findApplications(n Node, parent *objPath, out []object) []object {
	for c := range n.Objects() {
		o := newObject(c, parent)
		if o.kind() == "RealTimeApplication" {
			out = append(out, o)
			continue
		}
		out = findApplications(c, o.path, out)
	}
	return out
}

// dropIndexes drops the maps that find GAMs, groups, datasources and
// signals by name, once every name is resolved, so that the memory they
// hold is free before the TOML is printed.
func (a *application) dropIndexes() {
	a.gamByName, a.groups, a.dsByName = nil, nil, nil
	for _, ds := range a.sources {
		ds.byName = nil
	}
}

// readApplication builds the model of the application o. Problems that
// stop the import (a thread naming a GAM that does not exist) are
// returned as errors.
func (im *importer) readApplication(o object) *application {
	a := &application{obj: o, gamByName: map[string]*gamDef{}, groups: map[string]*gamGroup{}, dsByName: map[string]*dataSource{}}
	for c := range o.node.Objects() {
		co := newObject(c, o.path)
		switch {
		case co.name() == "Functions":
			im.readFunctions(a, c, co.path, "", 0)
		case co.name() == "Data":
			if d := c.Leaf("DefaultDataSource"); !d.IsZero() {
				a.defaultDS, _ = d.Value().Text()
			}
			for dn := range c.Objects() {
				ds := &dataSource{object: newObject(dn, co.path)}
				a.sources = append(a.sources, ds)
				a.dsByName[ds.name()] = ds
				im.readDeclaredSignals(ds)
			}
		case co.name() == "States":
			for sn := range c.Objects() {
				a.states = append(a.states, im.readState(a, newObject(sn, co.path)))
			}
		case strings.HasSuffix(co.kind(), "Scheduler"):
			s := co
			a.scheduler = &s
		default:
			a.others = append(a.others, co)
		}
	}
	for _, g := range a.gams {
		for _, s := range g.inputs() {
			im.steps++
			im.addReference(a, s)
		}
		for _, s := range g.outputs() {
			im.steps++
			im.addReference(a, s)
		}
	}
	return a
}

// readFunctions flattens +Functions: a ReferenceContainer of GAMs is a
// group, its GAMs named Group.GAM.
func (im *importer) readFunctions(a *application, n Node, path *objPath, prefix string, groups int) {
	for c := range n.Objects() {
		o := newObject(c, path)
		// A group holds GAMs: a ReferenceContainer, or any object (a
		// GAMGroup) with objects inside and no signals of its own.
		group := c.hasObjects() && c.Block("InputSignals").IsZero() && c.Block("OutputSignals").IsZero()
		if o.kind() == "ReferenceContainer" || group {
			im.readFunctions(a, c, o.path, prefix+o.name()+".", groups+1)
			continue
		}
		im.steps++
		g := &gamDef{object: o, qlen: uint8(groups + 1)}
		qname := prefix + o.name()
		im.readGAMSignals(g, c.Block("InputSignals"), c.Block("OutputSignals"))
		a.gams = append(a.gams, g)
		a.gamByName[qname] = g
		// Every group the GAM is in: "A" and "A.B" for "A.B.GAM".
		for i := range len(qname) {
			im.steps++
			if qname[i] == '.' {
				grp := a.groups[qname[:i]]
				if grp == nil {
					grp = &gamGroup{}
					a.groups[qname[:i]] = grp
				}
				grp.gams = append(grp.gams, g)
			}
		}
	}
}

func (im *importer) readGAMSignals(g *gamDef, ins, outs Node) {
	// The signals in one allocation.
	count := 0
	for _, n := range [2]Node{ins, outs} {
		for c := range n.Children() {
			if c.IsBlock() {
				count++
			}
		}
	}
	g.sigs = make([]gamSignal, 0, count)
	for k, n := range [2]Node{ins, outs} {
		for c := range n.Children() {
			im.steps++
			if !c.IsBlock() {
				continue
			}
			g.sigs = append(g.sigs, gamSignal{gam: g, idx: c.i, input: k == 0, dims: -1})
			s := &g.sigs[len(g.sigs)-1]
			// Checked here, read again when needed.
			im.text(c, "DataSource")
			im.text(c, "Alias")
			im.text(c, "Type")
			s.elems = int32(im.count(c, "NumberOfElements"))
			if !c.Leaf("NumberOfDimensions").IsZero() {
				s.dims = int32(im.count(c, "NumberOfDimensions"))
			}
			if !c.Leaf("Samples").IsZero() && im.count(c, "Samples") > 1 {
				s.unsupp = unsuppSamples
			}
			if !c.Leaf("Ranges").IsZero() {
				s.unsupp = unsuppRanges
			}
		}
		if k == 0 {
			g.nIn = int32(len(g.sigs))
		}
	}
}

// readDeclaredSignals reads the Signals block of a datasource.
func (im *importer) readDeclaredSignals(ds *dataSource) {
	sigs := ds.node.Block("Signals")
	if sigs.IsZero() {
		return
	}
	for c := range sigs.Children() {
		im.steps++
		if !c.IsBlock() {
			continue // Locked = 1 and the like
		}
		im.text(c, "Type") // checked here, read again when needed
		s := &dsSignal{ds: ds, idx: c.i, typAt: typeLeaf(c), elems: int32(im.count(c, "NumberOfElements")), dims: -1}
		if !c.Leaf("NumberOfDimensions").IsZero() {
			s.dims = int32(im.count(c, "NumberOfDimensions"))
		}
		ds.add(s)
	}
}

// addReference adds the signal a GAM names to its datasource, as MARTe2's
// configuration builder does, and records the reference.
func (im *importer) addReference(a *application, s *gamSignal) {
	ds := a.dsByName[s.dsName(a)]
	if ds == nil {
		return // reported where the signal is resolved
	}
	alias := s.alias()
	d := ds.signal(alias)
	if d == nil {
		d = &dsSignal{ds: ds, idx: -1, typAt: -1, first: s, dims: -1}
		ds.add(d)
	}
	if d.typAt < 0 {
		d.typAt = typeLeaf(s.node())
	}
	if d.elems == 0 {
		d.elems = s.elems
	}
	if d.dims < 0 {
		d.dims = s.dims
	}
	if d.first == nil {
		d.first = s
	}
	if !s.input && d.writer == nil {
		d.writer = s.gam
	}
	s.sig = d
}

// readState reads a RealTimeState: its +Threads container of
// RealTimeThreads, each with its Functions list.
func (im *importer) readState(a *application, o object) *state {
	st := &state{object: o}
	threads := o.node.Block("+Threads")
	if threads.IsZero() {
		return st
	}
	tp := o.path.child("+Threads")
	for tn := range threads.Objects() {
		t := &threadDef{object: newObject(tn, tp)}
		if f := tn.Leaf("Functions"); !f.IsZero() {
			t.functions = f.Value()
			for it := range f.Value().All() {
				im.steps++
				if !a.hasFunction(it.Text) {
					im.errorf(it.Pos, "%s: Functions: no GAM or group named %q in %s.+Functions", t.path, it.Text, a.obj.path)
				}
			}
		} else {
			im.errorf(tn.Pos(), "%s: no Functions: a RealTimeThread lists the GAMs it runs", t.path)
		}
		st.threads = append(st.threads, t)
	}
	return st
}

// functionName returns the name a thread's Functions entry gives in
// +Functions: ":Functions.GAM" names it from the application.
func functionName(name string) string {
	if strings.HasPrefix(name, ":") {
		name = strings.TrimPrefix(strings.TrimLeft(name, ":"), "Functions.")
	}
	return name
}

// hasFunction reports whether a thread's Functions entry names a GAM or a
// group of GAMs.
func (a *application) hasFunction(name string) bool {
	name = functionName(name)
	return a.gamByName[name] != nil || a.groups[name] != nil
}

// gamGroup is a group of GAMs in +Functions.
type gamGroup struct {
	gams   []*gamDef // in order
	listed int32     // the last thread (index + 1 in its state) whose Functions named it (expandThreads)
}

// expandThreads resolves the Functions of the imported state's threads:
// each GAM runs in one thread (MARTe2 refuses a GAM in two threads of one
// state), once per cycle. Each GAM is claimed once and each entry
// expanded once per thread, so the work is linear in the file.
func (im *importer) expandThreads(a *application, st *state) {
	for ti, t := range st.threads {
		mark := int32(ti + 1)
		if t.functions.n.IsZero() {
			continue
		}
		for it := range t.functions.All() {
			im.steps++
			// One GAM, or every GAM of a group, in order; each entry
			// once per thread.
			name := functionName(it.Text)
			var one [1]*gamDef
			var gams []*gamDef
			if g := a.gamByName[name]; g != nil {
				if g.listed == mark {
					continue
				}
				g.listed, one[0] = mark, g
				gams = one[:]
			} else if grp := a.groups[name]; grp != nil {
				if grp.listed == mark {
					continue
				}
				grp.listed, gams = mark, grp.gams
			}
			for _, g := range gams {
				im.steps++
				if g.thread == nil {
					g.thread, g.order = t, int32(len(t.gams))
					t.gams = append(t.gams, g)
					continue
				}
				if g.thread != t {
					im.errorf(it.Pos, "%s: Functions: %s is already run by thread %s of state %s (MARTe2 refuses a GAM in two threads of one state)", t.path, g.path, shortName(g.thread.name()), shortName(st.name()))
					break
				}
			}
		}
	}
}

// text returns the scalar leaf key of n, or "".
func (im *importer) text(n Node, key string) string {
	l := n.Leaf(key)
	if l.IsZero() {
		return ""
	}
	s, ok := l.Value().Text()
	if !ok {
		im.errorf(l.Value().Pos(), "%s: expected a single value, got %v", key, l.Value())
	}
	return s
}

// count returns the non-negative integer leaf key of n, or 0.
func (im *importer) count(n Node, key string) int {
	s := im.text(n, key)
	if s == "" {
		return 0
	}
	u, ok := parseUint(s, 31)
	if !ok {
		im.errorf(n.Leaf(key).Value().Pos(), "%s: expected a non-negative integer, got %q", key, s)
	}
	return int(u)
}

func (im *importer) errorf(p Pos, format string, args ...any) {
	im.errs = append(im.errs, &Error{File: im.file, Pos: p, Msg: fmt.Sprintf(format, args...)})
}
