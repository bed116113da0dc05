package marte2

import (
	"encoding/binary"
	"iter"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The streamerd configuration being written. The tables of which there
// are few (App, Threads, DataSources) are kept as keys in the order they
// are printed, each with the comments that say where it came from; the
// GAMs, their outputs and the datasources' signals, of which a file may
// hold tens of thousands, are kept as small records and printed from the
// model (render).

type kv struct {
	key, value string // value already in TOML syntax
	comment    string // trailing comment, "" for none
	pos        Pos    // where in the MARTe2 file it comes from; zero: the table's
}

type table struct {
	comments []string // lines printed above the table header
	keys     []kv
	pos      Pos // the MARTe2 object or signal it comes from
}

func (t *table) set(key, value, comment string) {
	t.keys = append(t.keys, kv{key: key, value: value, comment: comment})
}

// setAt is set for a key that comes from the MARTe2 file at pos.
func (t *table) setAt(pos Pos, key, value, comment string) {
	t.keys = append(t.keys, kv{key, value, comment, pos})
}

// outThread is a [[Threads]] table: its keys, then GAMs, the names of
// gams.
type outThread struct {
	table
	name      string
	gams      []*outGAM
	functions Pos // where GAMs comes from: the thread's Functions
}

// outGAM is a [[GAMs]] table, printed from the MARTe2 GAM src and the
// origin it produces (render).
type outGAM struct {
	name  string
	src   *gamDef
	o     *origin      // the first origin routed to it: its kind, its thread; a constant's output
	first *dsSignal    // the signal o is routed to: its first output
	more  *[]outOutput // its other outputs, nil when none (most GAMs have one)
	prev  *outGAM      // the GAM made before from the same MARTe2 GAM, or nil
	order int32        // position of the MARTe2 GAM in its thread
}

// outputs yields the GAM's outputs in order.
func (g *outGAM) outputs() iter.Seq[outOutput] {
	return func(yield func(outOutput) bool) {
		if !yield(outOutput{g.first, g.o}) || g.more == nil {
			return
		}
		for _, o := range *g.more {
			if !yield(o) {
				return
			}
		}
	}
}

// outOutput is a [[GAMs.Outputs]] table: the producer's output that
// writes the datasource signal sig, the value o.
type outOutput struct {
	sig *dsSignal
	o   *origin
}

// outSource is a [[DataSources]] table and, one per signal of ds, its
// [[DataSources.Signals]] tables (dsSignal.out).
type outSource struct {
	table
	ds *dataSource
}

// A [[DataSources.Signals]] table prints a datasource signal: the value
// that feeds it (written.o), its streamerd type (sent), and the keys after
// Name and Type and the comments after the first (importer.more), if any.

// sentTypes are the types a signal is sent as: the numeric types, and
// char8 text (FlatUDP).
var sentTypes = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64", "char8"}

// sentType returns the index of typ in sentTypes; uint8's for a type that
// is not one (an error is reported).
func sentType(typ string) uint8 {
	for i, s := range sentTypes {
		if s == typ {
			return uint8(i)
		}
	}
	return 0
}

type outConfig struct {
	app     table
	threads []*outThread
	gams    []*outGAM // in thread order
	sources []*outSource
}

// lineSources says where the lines of the TOML come from: the runs of
// lines that come from one position of the MARTe2 file, each its first
// line, and that position's line and column. A run is a few bytes: the
// differences from the run before as varints; every sourceBlock-th run
// starts afresh and is indexed, so that finding a line reads at most
// sourceBlock runs.
type lineSources struct {
	data  []byte
	marks []sourceMark
}

// sourceMark indexes a run: where it starts in data, and its line.
type sourceMark struct{ off, line int32 }

const sourceBlock = 32

// sourceRun encodes runs, counting their bytes and marks (the counting
// pass) or writing them into s.
type sourceRun struct {
	n, size       int // runs, bytes
	line, srcLine int // of the last run
	write         bool
	s             lineSources
}

func (r *sourceRun) add(line int, pos Pos) {
	if r.n%sourceBlock == 0 {
		if r.write {
			r.s.marks = append(r.s.marks, sourceMark{int32(r.size), int32(line)})
		}
		r.line, r.srcLine = 0, 0
	}
	var b [3 * binary.MaxVarintLen64]byte
	e := binary.AppendUvarint(b[:0], uint64(line-r.line))
	e = binary.AppendVarint(e, int64(pos.Line-r.srcLine))
	e = binary.AppendUvarint(e, uint64(pos.Col))
	if r.write {
		r.s.data = append(r.s.data, e...)
	}
	r.n++
	r.size += len(e)
	r.line, r.srcLine = line, pos.Line
}

// find returns the position the line comes from: that of the last run
// that starts at or before it.
func (s *lineSources) find(line int) (Pos, bool) {
	m := sort.Search(len(s.marks), func(i int) bool { return int(s.marks[i].line) > line }) - 1
	if m < 0 {
		return Pos{}, false
	}
	data := s.data[s.marks[m].off:]
	var at Pos
	first, srcLine := 0, 0
	for k := 0; k < sourceBlock && len(data) > 0; k++ {
		dl, n1 := binary.Uvarint(data)
		ds, n2 := binary.Varint(data[n1:])
		col, n3 := binary.Uvarint(data[n1+n2:])
		data = data[n1+n2+n3:]
		first += int(dl)
		srcLine += int(ds)
		if first > line {
			break
		}
		at = Pos{srcLine, int(col)}
	}
	return at, true
}

// textSink is where text is written: a strings.Builder (messages), the
// TOML writer, or a comment line in it.
type textSink interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

// writer prints TOML and records where its lines come from. It is run
// twice over the same tables: first counting (write false), then, into
// text and sources allocated at their size, writing.
type writer struct {
	write   bool
	text    []byte
	n       int // bytes counted
	line    int // lines printed
	sources sourceRun
	last    Pos // the position of the last run
}

func (w *writer) WriteString(s string) (int, error) {
	if w.write {
		w.text = append(w.text, s...)
	} else {
		w.n += len(s)
	}
	return len(s), nil
}

func (w *writer) WriteByte(c byte) error {
	if w.write {
		w.text = append(w.text, c)
	} else {
		w.n++
	}
	return nil
}

// int writes a decimal integer.
func (w *writer) int(i int64) {
	var b [20]byte
	d := strconv.AppendInt(b[:0], i, 10)
	if w.write {
		w.text = append(w.text, d...)
	} else {
		w.n += len(d)
	}
}

// writeInt writes a decimal integer into w, without allocating when w
// is the TOML writer.
func writeInt(w textSink, i int) {
	switch s := w.(type) {
	case *writer:
		s.int(int64(i))
	case commentSink:
		s.w.int(int64(i))
	default:
		w.WriteString(strconv.Itoa(i))
	}
}

// begin starts a line that comes from pos.
func (w *writer) begin(pos Pos) {
	w.line++
	if w.sources.n == 0 || w.last != pos {
		w.sources.add(w.line, pos)
		w.last = pos
	}
}

// print prints one line that comes from pos.
func (w *writer) print(pos Pos, s string) {
	w.begin(pos)
	w.WriteString(s)
	w.WriteByte('\n')
}

// comment prints text as a comment line: "#", or "# text" on one line.
func (w *writer) comment(pos Pos, indent, text string) {
	if text == "" {
		w.print(pos, indent+"#")
		return
	}
	w.beginComment(pos, indent).WriteString(text)
	w.WriteByte('\n')
}

// beginComment starts a comment line from pos and returns the sink its
// text goes to; the caller ends the line.
func (w *writer) beginComment(pos Pos, indent string) commentSink {
	w.begin(pos)
	w.WriteString(indent)
	w.WriteString("# ")
	return commentSink{w}
}

// key prints indent key = value, with its comment.
func (w *writer) key(pos Pos, indent, key, value, comment string) {
	w.begin(pos)
	w.WriteString(indent)
	w.WriteString(key)
	w.WriteString(" = ")
	w.WriteString(value)
	w.endKey(comment)
}

// keyString prints indent key = "value".
func (w *writer) keyString(pos Pos, indent, key, value string) {
	w.begin(pos)
	w.WriteString(indent)
	w.WriteString(key)
	w.WriteString(" = ")
	writeTOMLString(w, value)
	w.WriteByte('\n')
}

// endKey ends a key's line with its comment, if any.
func (w *writer) endKey(comment string) {
	if comment != "" {
		w.WriteString("  # ")
		commentSink{w}.WriteString(comment)
	}
	w.WriteByte('\n')
}

// header starts a table from pos: a blank line, its comments, its
// header line.
func (w *writer) header(pos Pos, indent, header string, comments []string) {
	w.print(pos, "")
	for _, l := range comments {
		w.comment(pos, indent, l)
	}
	w.begin(pos)
	w.WriteString(indent)
	w.WriteString(header)
	w.WriteByte('\n')
}

// keys prints the keys of t.
func (w *writer) keys(indent string, t *table) {
	for _, k := range t.keys {
		pos := k.pos
		if pos == (Pos{}) {
			pos = t.pos
		}
		w.key(pos, indent, k.key, k.value, k.comment)
	}
}

func (w *writer) section(indent, header string, t *table) {
	w.header(t.pos, indent, header, t.comments)
	w.keys(indent, t)
}

// commentSink writes into a comment line: a name from the file may hold
// a newline or another control character, which becomes a space.
type commentSink struct{ w *writer }

func (c commentSink) WriteString(s string) (int, error) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= ' ' && s[i] < utf8.RuneSelf
	}
	if plain {
		return c.w.WriteString(s)
	}
	for _, r := range s {
		if r < ' ' {
			r = ' '
		}
		var b [utf8.UTFMax]byte
		c.w.WriteString(string(utf8.AppendRune(b[:0], r)))
	}
	return len(s), nil
}

func (c commentSink) WriteByte(b byte) error {
	if b < ' ' {
		b = ' '
	}
	return c.w.WriteByte(b)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	writeTOMLString(&b, s)
	return b.String()
}

// writeTOMLString writes s as a TOML basic string.
func writeTOMLString(w textSink, s string) {
	w.WriteByte('"')
	plain := 0 // the start of the characters not yet written, which need no escape
	for i, r := range s {
		var esc string
		switch {
		case r == '"':
			esc = `\"`
		case r == '\\':
			esc = `\\`
		case r == '\n':
			esc = `\n`
		case r == '\t':
			esc = `\t`
		case r == '\r':
			esc = `\r`
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			esc = `\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:]
		default:
			continue
		}
		w.WriteString(s[plain:i])
		w.WriteString(esc)
		_, size := utf8.DecodeRuneInString(s[i:])
		plain = i + size
	}
	w.WriteString(s[plain:])
	w.WriteByte('"')
}

// tomlFloat writes a finite float so that TOML reads it back as the same
// float (never as an integer).
func tomlFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "nan" // never produced for valid input; the loader rejects it
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e15) {
		format = 'g'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func tomlInt(i int64) string { return strconv.FormatInt(i, 10) }

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
