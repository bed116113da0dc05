package marte2

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The streamerd configuration being written: tables of keys in the order
// they are printed, each with the comments that say where it came from.

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

type outThread struct {
	table
	name string
	gams []*outGAM
}

type outGAM struct {
	table
	name    string
	thread  *threadState
	order   int // position of the MARTe2 GAM in its thread
	outputs []table
}

type outSource struct {
	table
	name    string
	signals []table
}

type outConfig struct {
	header  []string
	app     table
	threads []*outThread
	gams    []*outGAM // in thread order
	sources []*outSource
}

// lineSource says that the TOML lines from line on come from pos in the
// MARTe2 file (up to the next lineSource).
type lineSource struct {
	line int
	pos  Pos
}

// writer prints TOML and records where its lines come from.
type writer struct {
	b       bytes.Buffer
	line    int // lines printed
	sources []lineSource
}

// print prints one line that comes from pos.
func (w *writer) print(pos Pos, s string) {
	w.line++
	if n := len(w.sources); n == 0 || w.sources[n-1].pos != pos {
		w.sources = append(w.sources, lineSource{w.line, pos})
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// render prints the configuration as TOML, and where each line comes
// from; the header comments come from at.
func (c *outConfig) render(at Pos) ([]byte, []lineSource, int) {
	w := &writer{}
	for _, l := range c.header {
		w.comment(at, "", l)
	}
	w.section("", "[App]", &c.app)
	for _, t := range c.threads {
		w.section("", "[[Threads]]", &t.table)
	}
	for _, g := range c.gams {
		w.section("", "[[GAMs]]", &g.table)
		for i := range g.outputs {
			w.section("  ", "[[GAMs.Outputs]]", &g.outputs[i])
		}
	}
	for _, s := range c.sources {
		w.section("", "[[DataSources]]", &s.table)
		for i := range s.signals {
			w.section("  ", "[[DataSources.Signals]]", &s.signals[i])
		}
	}
	return w.b.Bytes(), w.sources, w.line
}

func (w *writer) section(indent, header string, t *table) {
	w.print(t.pos, "")
	for _, l := range t.comments {
		w.comment(t.pos, indent, l)
	}
	w.print(t.pos, indent+header)
	for _, k := range t.keys {
		line := indent + k.key + " = " + k.value
		if k.comment != "" {
			line += "  # " + oneLine(k.comment)
		}
		pos := k.pos
		if pos == (Pos{}) {
			pos = t.pos
		}
		w.print(pos, line)
	}
}

func (w *writer) comment(pos Pos, indent, text string) {
	if text == "" {
		w.print(pos, indent+"#")
		return
	}
	w.print(pos, indent+"# "+oneLine(text))
}

// oneLine keeps a comment on its line: a name from the file may hold a
// newline.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < ' ' {
			return ' '
		}
		return r
	}, s)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
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
