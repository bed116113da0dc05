package marte2

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Verdict is what became of a MARTe2 object or parameter.
type Verdict uint8

// The verdicts, from best to worst.
const (
	Maps         Verdict = iota // imported with the same behaviour
	Approximated                // imported; the note says what differs
	Skipped                     // not imported; the note says why
)

func (v Verdict) String() string {
	switch v {
	case Maps:
		return "maps"
	case Approximated:
		return "approximated"
	}
	return "skipped"
}

// Note records what became of one MARTe2 object (or one of its
// parameters): Path is the object path (as messages show it: a long name
// cut, a long path shortened in the middle), Pos where it is defined.
type Note struct {
	Pos     Pos
	Path    string
	Class   string
	Verdict Verdict
	Text    string
}

// Format returns the note as a warning line: file:line:col: path (class):
// verdict: text.
func (n Note) Format(file string) string {
	var b strings.Builder
	n.write(&b, file)
	return b.String()
}

// write writes what Format returns.
func (n Note) write(w textSink, file string) {
	w.WriteString(file)
	w.WriteByte(':')
	writeInt(w, n.Pos.Line)
	w.WriteByte(':')
	writeInt(w, n.Pos.Col)
	w.WriteString(": ")
	w.WriteString(n.Path)
	if n.Class != "" {
		w.WriteString(" (")
		w.WriteString(n.Class)
		w.WriteByte(')')
	}
	w.WriteString(": ")
	w.WriteString(n.Verdict.String())
	w.WriteString(": ")
	w.WriteString(n.Text)
}

func (im *importer) note(v Verdict, p Pos, path, class, format string, args ...any) {
	text := ""
	if s, ok := onlyString(format, args); ok {
		text = s // no copy
	} else {
		text = fmt.Sprintf(format, args...)
	}
	if im.notes == nil {
		// About one note per object, so that the notes grow once or twice.
		im.notes = make([]Note, 0, 16+im.objects)
	}
	im.notes = append(im.notes, Note{Pos: p, Path: im.keep(path), Class: im.keep(class), Verdict: v, Text: im.keep(text)})
}

// keep returns s, copied if it is a part of the file (the Result never
// refers to the file's bytes); each such string is copied once.
func (im *importer) keep(s string) string {
	if !within(s, im.src) {
		return s
	}
	k, ok := im.kept[s]
	if !ok {
		if im.kept == nil {
			im.kept = map[string]string{}
		}
		k = strings.Clone(s)
		im.kept[k] = k
	}
	return k
}

// onlyString returns the string that format "%s" prints of args.
func onlyString(format string, args []any) (string, bool) {
	if format != "%s" || len(args) != 1 {
		return "", false
	}
	s, ok := args[0].(string)
	return s, ok
}

func (im *importer) maps(p Pos, path, class, format string, args ...any) {
	im.note(Maps, p, path, class, format, args...)
}

func (im *importer) approx(p Pos, path, class, format string, args ...any) {
	im.note(Approximated, p, path, class, format, args...)
}

func (im *importer) skip(p Pos, path, class, format string, args ...any) {
	im.note(Skipped, p, path, class, format, args...)
}

func sortNotes(ns []Note) {
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].Pos.Line != ns[j].Pos.Line {
			return ns[i].Pos.Line < ns[j].Pos.Line
		}
		return ns[i].Pos.Col < ns[j].Pos.Col
	})
}

// Warnings returns the notes that are not Maps: what the import changed
// or left out, each with its position.
func (r *Result) Warnings() []Note {
	var out []Note
	for _, n := range r.Notes {
		if n.Verdict != Maps {
			out = append(out, n)
		}
	}
	return out
}

// WriteReport prints every note as a table (verdict, position, object,
// text) and a count of each verdict.
func (r *Result) WriteReport(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var count [3]int
	for _, n := range r.Notes {
		count[n.Verdict]++
		what := n.Path
		if n.Class != "" {
			what += " (" + n.Class + ")"
		}
		fmt.Fprintf(tw, "%s\t%s:%d:%d\t%s\t%s\n", n.Verdict, r.File, n.Pos.Line, n.Pos.Col, what, n.Text)
	}
	tw.Flush()
	fmt.Fprintf(w, "%s: %d maps, %d approximated, %d skipped\n", r.File, count[Maps], count[Approximated], count[Skipped])
}
