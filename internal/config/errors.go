package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/streamerd/streamerd/datasource"
)

// Error is one positioned configuration error. Line and Col are 1-based;
// Col counts characters. Where names the table in the user's terms
// (`DataSources[0] "Streamer" Signals[2] "Ch1"`) and Key the parameter, both
// possibly empty.
type Error struct {
	File      string
	Line, Col int
	Flag      string // the command-line flag that gave the value (Override); then Line and Col are 0
	Where     string
	Key       string
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Flag != "" {
		fmt.Fprintf(&b, "%s: flag %s: ", e.File, e.Flag)
	} else {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Col)
	}
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(plainKey(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// plainKey returns key as it is when it is short and printable, else
// quoted and clipped: a key is the file's text too (an unknown key can be
// anything TOML allows).
func plainKey(key string) string {
	if _, _, bad := badRune(key); bad || len(key) > maxQuoted {
		return quote(key)
	}
	return key
}

// PositionedError is an error of the start (a port taken, a CPU the
// machine lacks) placed at the key or table of the file it comes from, as
// a configuration error is: "app.toml:10:1: App: HTTPAddress: listen tcp …".
type PositionedError struct {
	At  *Error // the position; its Msg is empty
	Err error
}

func (e *PositionedError) Error() string { return e.At.Error() + e.Err.Error() }

// Unwrap returns the error placed.
func (e *PositionedError) Unwrap() error { return e.Err }

// At places err at the key or table at path ("App.HTTPAddress",
// "DataSources[0]"): the start's errors name the file, line and key as
// the configuration's do.
func (f *File) At(path string, err error) error {
	if err == nil {
		return nil
	}
	return &PositionedError{At: f.errAt(path, ""), Err: err}
}

// Errors is every error found in one configuration file, sorted by
// position. Its Error method prints one error per line.
type Errors []*Error

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the errors as a slice, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sortErrors orders errors by line and column, keeping discovery order for
// ties, and drops exact duplicates.
func sortErrors(es []*Error) Errors {
	slices.SortStableFunc(es, func(a, b *Error) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
	return slices.CompactFunc(es, func(a, b *Error) bool { return *a == *b })
}

// Position returns the line and column of the key at path, for example
// "DataSources[0].Signals[2].QuantizedType", or of the innermost enclosing
// table the file spells out when the key itself is absent; 1:1 when nothing
// matches.
func (f *File) Position(path string) (line, col int) {
	if f.ix == nil {
		return 1, 1
	}
	return f.ix.lookup(path)
}

// spelled reports whether the file spells out the key at path itself.
func (f *File) spelled(path string) bool {
	if f.ix == nil {
		return false
	}
	_, ok := f.ix.pos[path]
	return ok
}

// Errorf returns an *Error positioned at path (see Position) whose text is
// "<file>:<line>:<col>: <where>: <key>: <message>".
func (f *File) Errorf(path, format string, args ...any) error {
	return f.errAt(path, message(format, args...))
}

// errAt builds an *Error for the key at path; a path ending in "]" names a
// table (an element of an array) and gets no key part.
func (f *File) errAt(path, msg string) *Error {
	tbl, key := path, ""
	if n := len(path); n > 0 && path[n-1] != ']' {
		tbl = parent(path)
		if tbl == "" {
			key = path
		} else {
			key = path[len(tbl)+1:]
		}
	}
	return f.errKey(tbl, key, msg)
}

// errKey builds an *Error for key (which may contain dots) in the table at
// canonical path tbl.
func (f *File) errKey(tbl, key, msg string) *Error {
	pos := key
	if tbl != "" {
		pos = tbl + "." + key
	}
	if key == "" {
		pos = tbl
	}
	if flag, ok := f.flags[pos]; ok {
		return &Error{File: f.Path, Flag: flag, Where: f.where(tbl), Key: key, Msg: clipMessage(msg)}
	}
	line, col := f.Position(pos)
	return &Error{File: f.Path, Line: line, Col: col, Where: f.where(tbl), Key: key, Msg: clipMessage(msg)}
}

// where renders a canonical table path for humans: each array element is
// followed by its Name when it has one.
func (f *File) where(path string) string {
	if path == "" {
		return ""
	}
	var b strings.Builder
	var cur any = f.raw
	for i, seg := range strings.Split(path, ".") {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(seg)
		name, idx := seg, -1
		if j := strings.IndexByte(seg, '['); j >= 0 && strings.HasSuffix(seg, "]") {
			name = seg[:j]
			if n, err := strconv.Atoi(seg[j+1 : len(seg)-1]); err == nil {
				idx = n
			}
		}
		m, _ := cur.(map[string]any)
		cur = m[name]
		if idx >= 0 {
			cur = element(cur, idx)
			if em, ok := cur.(map[string]any); ok {
				if s, ok := em["Name"].(string); ok && s != "" {
					b.WriteString(" " + quote(s))
				}
			}
		}
	}
	return b.String()
}

func element(v any, i int) any {
	switch a := v.(type) {
	case []any:
		if i < len(a) {
			return a[i]
		}
	case []map[string]any:
		if i < len(a) {
			return a[i]
		}
	}
	return nil
}

// WrapConfigErrors converts the *datasource.ConfigError values inside err
// (a single one or an errors.Join tree), reported by a producer's own
// validation of DataSources[dsIndex], into positioned errors pointing at
// the signal parameter or datasource parameter they name. Every error is
// kept; errors of other types are positioned at the datasource table. It
// returns nil for a nil err and an Errors value otherwise.
func (f *File) WrapConfigErrors(dsIndex int, err error) error {
	if err == nil {
		return nil
	}
	return sortErrors(f.configErrors(dsIndex, err, nil, nil))
}

// configErrors appends the positioned errors of err to out, leaving out
// those on a key that skip holds (one the decoder already reported).
func (f *File) configErrors(dsIndex int, err error, skip map[string]bool, out []*Error) []*Error {
	if err == nil {
		return out
	}
	base := "DataSources[" + strconv.Itoa(dsIndex) + "]"
	if ce, ok := err.(*datasource.ConfigError); ok {
		param := ce.Parameter
		if j := strings.IndexByte(param, '/'); j >= 0 { // "Rows/Cols"
			param = param[:j]
		}
		tbl := base
		if ce.Index >= 0 {
			tbl = base + ".Signals[" + strconv.Itoa(ce.Index) + "]"
		} else if sub := base + ".degradations"; f.spelled(sub+"."+param) && !f.spelled(base+"."+param) {
			tbl = sub // an RD100S degradation key
		}
		if skip[join(tbl, param)] {
			return out
		}
		e := f.errKey(tbl, param, ce.Rule)
		e.Key = ce.Parameter
		return append(out, e)
	}
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range u.Unwrap() {
			out = f.configErrors(dsIndex, e, skip, out)
		}
		return out
	}
	var ce *datasource.ConfigError
	if errors.As(err, &ce) {
		return f.configErrors(dsIndex, ce, skip, out)
	}
	return append(out, f.errKey(base, "", err.Error()))
}
