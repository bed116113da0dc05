package marte2

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/streamerd/streamerd/internal/regfile"
)

// Options tune Import.
type Options struct {
	// Partial imports even when a signal of an imported datasource comes
	// from something that is not imported: the signal is kept, stays zero,
	// and a warning names it. Without Partial such a signal is an error.
	Partial bool
	// HTTPAddress is the App.HTTPAddress written: host:port of streamerd's
	// HTTP endpoint (metrics, status, operator control); ""
	// means DefaultHTTPAddress, unless NoHTTP writes "" (HTTP off).
	HTTPAddress string
	NoHTTP      bool

	// checkpoint, when set, is called where the import holds the most
	// memory: after the parse, after the model is built, and once the
	// TOML is allocated, before it is written (tests measure the heap
	// there).
	checkpoint func()
}

// DefaultHTTPAddress is the HTTP address an imported application gets: a
// loopback port the kernel chooses when streamerd starts, named in its
// log, so that it never clashes with another streamerd (the default
// configuration's 127.0.0.1:9100, say).
const DefaultHTTPAddress = "127.0.0.1:0"

// Result is an imported application.
type Result struct {
	File  string // the MARTe2 file's name, as given
	TOML  []byte // the streamerd configuration; nil when Import failed
	Notes []Note // what became of every object, in file order

	sources lineSources // where the lines of TOML come from
	lines   int         // lines of TOML
}

// Source returns the position in the MARTe2 file that a line of TOML
// (1-based) was imported from, so that the loader's errors on the TOML
// can name the MARTe2 line; false when line is not in the TOML.
func (r *Result) Source(line int) (Pos, bool) {
	if line < 1 || line > r.lines {
		return Pos{}, false
	}
	return r.sources.find(line)
}

// Errors is every problem that stopped an import, sorted by position; its
// Error method prints one per line.
type Errors []*Error

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

type importer struct {
	file    string
	opt     Options
	errs    []*Error
	notes   []Note
	src     string                       // the file
	kept    map[string]string            // strings of the file kept in notes, copied once each
	objects int                          // in the file
	waves   map[*gamDef]*wave            // the WaveformGAMs that map to a sine
	more    map[*dsSignal]*table         // the keys of imported signals after Name and Type, when any
	blamed  map[*gamDef]*origin          // the GAMs not imported: the first unfed value each is to blame for
	earlier map[*dsSignal][]*threadState // the threads that write a signal before the last one
	// steps counts the iterations of the loops over GAMs, signals and
	// threads; TestImportLinear holds it linear in the file's size.
	steps int
}

// ReadFile reads a MARTe2 configuration file, refusing one larger than
// MaxFileSize before reading it all, and a path that is not a regular file
// (a named pipe, a device) before reading from it.
func ReadFile(path string) ([]byte, error) {
	data, err := regfile.Read(path, MaxFileSize)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, &Error{File: path, Pos: Pos{1, 1}, Msg: fmt.Sprintf("file larger than %d bytes", MaxFileSize)}
	}
	return data, err
}

// Import parses a MARTe2 configuration and maps its RealTimeApplication
// onto a streamerd configuration (TOML, for internal/config). name is the
// file name used in messages and comments.
//
// The Result lists what maps, what is approximated and what is skipped,
// with positions. A syntax error, a broken reference, or (without
// opt.Partial) a signal of an imported datasource that would be fed by
// something not imported is an error; the Result is then still returned
// with its notes, and TOML is nil.
//
// Import reads data in place, without a copy: data must not change while
// Import runs. Neither the Result nor the error refers to data.
func Import(name string, data []byte, opt Options) (*Result, error) {
	_, res, err := importWith(name, data, opt)
	return res, err
}

// importWith is Import, returning the importer too (for its steps).
func importWith(name string, data []byte, opt Options) (*importer, *Result, error) {
	im := &importer{file: name, opt: opt, waves: map[*gamDef]*wave{}}
	root, err := Parse(name, data)
	if err != nil {
		return im, nil, err
	}
	im.src = root.t.src
	res := &Result{File: name}
	im.checkpoint()
	im.objects = root.countObjects()
	out, a, st := im.run(root)
	im.checkpoint()
	sortNotes(im.notes)
	res.Notes = im.notes
	if len(im.errs) > 0 {
		return im, res, sortErrors(im.errs)
	}
	res.TOML, res.sources, res.lines = im.render(out, a, st)
	return im, res, nil
}

func (im *importer) checkpoint() {
	if im.opt.checkpoint != nil {
		im.opt.checkpoint()
	}
}

// sortErrors sorts errors by position, keeping their order for the same
// position, and drops repeats (the same message at the same position).
func sortErrors(es []*Error) Errors {
	slices.SortStableFunc(es, func(a, b *Error) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	return slices.CompactFunc(es, func(a, b *Error) bool { return *a == *b })
}

// run imports the first RealTimeApplication of the tree: the
// configuration, the application and the state imported; nil when
// nothing can be.
func (im *importer) run(root Node) (*outConfig, *application, *state) {
	apps := findApplications(root, nil, nil)
	if len(apps) == 0 {
		im.errorf(Pos{1, 1}, "no RealTimeApplication: nothing to import (streamerd imports an object with Class = RealTimeApplication)")
		return nil, nil, nil
	}
	for _, o := range apps[1:] {
		im.skip(o.node.Pos(), o.path.String(), o.class, "streamerd imports one RealTimeApplication, the first (%s)", apps[0].path)
	}
	im.noteOutside(root, nil, apps[0].node)
	a := im.readApplication(apps[0])
	im.checkCharDefaults(a)
	st := im.chooseState(root, a)
	if st == nil {
		return nil, nil, nil
	}
	im.expandThreads(a, st)
	var threads []*threadState
	for i, t := range st.threads {
		ts := &threadState{def: t, index: i}
		im.resolveThread(a, ts)
		threads = append(threads, ts)
	}
	a.dropIndexes()
	out := im.build(a, st, threads)
	// What the TOML is printed from is out; the lists of the model's GAMs
	// are free before its memory is allocated.
	a.gams = nil
	for _, t := range st.threads {
		t.gams = nil
	}
	return out, a, st
}

// noteOutside notes the objects outside the application, which streamerd
// does not import.
func (im *importer) noteOutside(n Node, parent *objPath, app Node) {
	for c := range n.Objects() {
		if c == app {
			continue
		}
		o := newObject(c, parent)
		if c.contains(app) {
			im.noteOutside(c, o.path, app)
			continue
		}
		why := "not part of the RealTimeApplication; streamerd imports the application only"
		switch o.kind() {
		case "StateMachine":
			why = "streamerd runs one state and has no state machine; operators act on the datasources over HTTP"
		case "HttpService", "HttpObjectBrowser", "HttpDirectoryResource", "HttpMessageInterface", "HttpDataExportI":
			why = "streamerd serves metrics, status and control over HTTP itself: [App] HTTPAddress = " + tomlString(im.httpAddress())
		}
		im.skip(c.Pos(), o.path.String(), o.class, "%s", why)
	}
}

// chooseState picks the state to import: the one the application's state
// machine enters first (a PrepareNextState message to the application),
// else the first.
func (im *importer) chooseState(root Node, a *application) *state {
	if len(a.states) == 0 {
		im.errorf(a.obj.node.Pos(), "%s: no +States with a RealTimeState: no thread to import", a.obj.path)
		return nil
	}
	chosen, why := a.states[0], "the first state"
	if name, p, ok := firstPrepareNextState(root, a.obj.name()); ok {
		for _, s := range a.states {
			if s.name() == name {
				chosen, why = s, fmt.Sprintf("the state the StateMachine prepares first (line %d)", p.Line)
			}
		}
	}
	for _, s := range a.states {
		if s == chosen {
			im.maps(s.node.Pos(), s.path.String(), s.class, "imported (%s): its %d thread(s) become [[Threads]]", why, len(s.threads))
			continue
		}
		im.skip(s.node.Pos(), s.path.String(), s.class, "streamerd runs one state; %s was imported (%s)", shortName(chosen.name()), why)
	}
	return chosen
}

// firstPrepareNextState finds, in file order, the first Message whose
// Function is PrepareNextState and whose Destination is the application,
// and returns the state it names (Parameters.param1).
func firstPrepareNextState(n Node, app string) (string, Pos, bool) {
	for c := range n.Children() {
		if !c.IsBlock() {
			continue
		}
		if text(c, "Function") == "PrepareNextState" && lastPathElem(text(c, "Destination")) == app {
			if p := c.Block("+Parameters"); !p.IsZero() {
				if s := text(p, "param1"); s != "" {
					return s, c.Pos(), true
				}
			}
		}
		if s, p, ok := firstPrepareNextState(c, app); ok {
			return s, p, true
		}
	}
	return "", Pos{}, false
}

func lastPathElem(s string) string {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[i+1:]
	}
	return s
}

// text returns the scalar leaf key of n, or "" (no error: for searches).
func text(n Node, key string) string {
	if l := n.Leaf(key); !l.IsZero() {
		s, _ := l.Value().Text()
		return s
	}
	return ""
}

// errorList returns err's errors, for callers that print them one by one.
func errorList(err error) []*Error {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return nil
}
