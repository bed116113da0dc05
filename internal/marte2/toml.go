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
}

type table struct {
	comments []string // lines printed above the table header
	keys     []kv
}

func (t *table) set(key, value, comment string) {
	t.keys = append(t.keys, kv{key, value, comment})
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
	threads []*outThread
	gams    []*outGAM // in thread order
	sources []*outSource
}

// render prints the configuration as TOML.
func (c *outConfig) render() []byte {
	var b bytes.Buffer
	for _, l := range c.header {
		comment(&b, "", l)
	}
	for _, t := range c.threads {
		section(&b, "", "[[Threads]]", &t.table)
	}
	for _, g := range c.gams {
		section(&b, "", "[[GAMs]]", &g.table)
		for i := range g.outputs {
			section(&b, "  ", "[[GAMs.Outputs]]", &g.outputs[i])
		}
	}
	for _, s := range c.sources {
		section(&b, "", "[[DataSources]]", &s.table)
		for i := range s.signals {
			section(&b, "  ", "[[DataSources.Signals]]", &s.signals[i])
		}
	}
	return b.Bytes()
}

func section(b *bytes.Buffer, indent, header string, t *table) {
	b.WriteByte('\n')
	for _, l := range t.comments {
		comment(b, indent, l)
	}
	b.WriteString(indent + header + "\n")
	for _, k := range t.keys {
		line := indent + k.key + " = " + k.value
		if k.comment != "" {
			line += "  # " + oneLine(k.comment)
		}
		b.WriteString(line + "\n")
	}
}

func comment(b *bytes.Buffer, indent, text string) {
	if text == "" {
		b.WriteString(indent + "#\n")
		return
	}
	b.WriteString(indent + "# " + oneLine(text) + "\n")
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
