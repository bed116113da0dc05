package config

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/streamerd/streamerd/internal/suggest"
)

// decoder walks the generic decoded document with the key declarations:
// each table's declarations read the keys they know, and the keys left
// over are unknown. All problems are collected.
//
// go-toml decodes the syntax (a duplicate key is a syntax error) into
// generic values, and its unstable parser gives every key's position
// (position.go). Its strict decoder into structs is not used: it stops at
// the first value of the wrong type, so it cannot report every mistake of
// a file at once; its messages name Go types; and one [[DataSources]]
// table takes the keys of its class only, which a struct per table cannot
// say.
type decoder struct {
	f    *File
	errs []*Error
	bad  map[string]bool // canonical paths of the keys reported so far

	suggested int // unknown keys given a suggestion, at most maxSuggestions

	// signals maps each datasource's signal names to their indices, built
	// once per datasource the first time an output names one of its
	// signals, so resolving n outputs costs O(n), not O(n × signals).
	signals map[int]map[string]int
}

// maxSuggestions bounds the unknown keys of one file that are compared with
// the known ones, so a file of a million misspelt keys costs no more than a
// file of a few.
const maxSuggestions = 100

// tbl is one TOML table being decoded.
type tbl struct {
	d    *decoder
	path string // canonical path, "" for the root
	m    map[string]any
	keys []string // keys the declarations know, in declaration order
}

func (d *decoder) errf(path, format string, args ...any) {
	d.bad[path] = true
	d.errs = append(d.errs, d.f.errAt(path, message(format, args...)))
}

func (t *tbl) at(key string) string { return join(t.path, key) }

func (t *tbl) errf(key, format string, args ...any) {
	t.d.bad[t.at(key)] = true
	t.d.errs = append(t.d.errs, t.d.f.errKey(t.path, key, message(format, args...)))
}

// failed reports whether an error was reported for key.
func (t *tbl) failed(key string) bool { return t.d.bad[t.at(key)] }

// get marks key as known and returns its value.
func (t *tbl) get(key string) (any, bool) {
	if !slices.Contains(t.keys, key) {
		t.keys = append(t.keys, key)
	}
	v, ok := t.m[key]
	return v, ok
}

// has reports whether key is present without marking it known.
func (t *tbl) has(key string) bool { _, ok := t.m[key]; return ok }

// done reports every key no declaration asked for, with the known key
// closest to it and the list of those the table takes.
func (t *tbl) done() {
	var unknown []string
	for k := range t.m {
		if !slices.Contains(t.keys, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		msg := message("unknown key %q", k)
		if t.d.suggested < maxSuggestions {
			t.d.suggested++
			if c := suggest.Closest(k, t.keys); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
		}
		msg += "; expected one of " + strings.Join(t.keys, ", ")
		t.d.errs = append(t.d.errs, t.d.f.errKey(t.path, k, msg))
	}
}

func (t *tbl) missing(key, what string) {
	t.errf(key, "required key is missing (expected %s)", what)
}

func (t *tbl) wrong(key, what string, v any) {
	t.errf(key, "expected %s, got %s", what, kind(v))
}

// sub returns the sub-table key, or nil when absent or not a table.
func (t *tbl) sub(key string) *tbl {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.wrong(key, "a table", v)
		return nil
	}
	return &tbl{d: t.d, path: t.at(key), m: m}
}

// tables returns the elements of an array of tables.
func (t *tbl) tables(key string) []*tbl {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	var elems []any
	switch a := v.(type) {
	case []any:
		elems = a
	case []map[string]any:
		for _, m := range a {
			elems = append(elems, m)
		}
	default:
		t.wrong(key, "an array of tables ([["+key+"]])", v)
		return nil
	}
	out := make([]*tbl, 0, len(elems))
	for i, e := range elems {
		p := t.at(key) + "[" + strconv.Itoa(i) + "]"
		m, ok := e.(map[string]any)
		if !ok {
			t.d.errf(p, "expected a table, got %s", kind(e))
			m = map[string]any{}
		}
		out = append(out, &tbl{d: t.d, path: p, m: m})
	}
	return out
}

// elem returns element i of the array of tables key, already decoded by
// tables, to report at its keys.
func (t *tbl) elem(key string, i int) *tbl {
	m, _ := element(t.m[key], i).(map[string]any)
	return &tbl{d: t.d, path: t.at(key) + "[" + strconv.Itoa(i) + "]", m: m}
}

// fileKeys are the top-level keys of a file.
var fileKeys = table[File]{
	name: "File",
	keys: []key[File]{
		custom("App", "table", func(t *tbl, f *File) {
			app := t.sub("App")
			if app == nil {
				app = &tbl{d: t.d, path: "App", m: map[string]any{}}
			}
			f.App = appKeys.decode(app)
			app.done()
		}).Doc("`[App]`: process settings, optional"),
		custom("Threads", "array of tables", func(t *tbl, f *File) {
			for _, tt := range t.tables("Threads") {
				f.Threads = append(f.Threads, threadKeys.decode(tt))
				tt.done()
			}
		}).Doc("`[[Threads]]`: RT threads, at least one unless every datasource is a `Replay`"),
		custom("GAMs", "array of tables", func(t *tbl, f *File) {
			for _, gt := range t.tables("GAMs") {
				f.GAMs = append(f.GAMs, t.d.gam(gt))
			}
		}).Doc("`[[GAMs]]`: function blocks, each run by one thread"),
		custom("DataSources", "array of tables", func(t *tbl, f *File) {
			for i, dt := range t.tables("DataSources") {
				f.DataSources = append(f.DataSources, t.d.dataSource(i, dt))
			}
		}).Doc("`[[DataSources]]`: output datasources"),
	},
}

// Parse strictly decodes and validates a configuration. path is used in
// error messages only. On failure it returns a nil *File and an Errors
// value with every problem found.
func Parse(path string, data []byte, overrides ...Override) (*File, error) {
	f := &File{Path: path}
	data = bytes.TrimPrefix(data, utf8BOM) // as editors on Windows write it
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return nil, syntaxError(path, err)
	}
	if raw == nil {
		raw = map[string]any{}
	}
	for _, o := range overrides {
		if err := f.override(raw, o); err != nil {
			return nil, err
		}
	}
	f.raw = raw
	f.ix = buildIndex(data)
	d := &decoder{f: f, bad: map[string]bool{}}
	root := &tbl{d: d, m: raw}
	fileKeys.read(root, f)
	root.done()
	d.validate()
	if len(d.errs) > 0 {
		return nil, sortErrors(d.errs)
	}
	d.warn()
	f.Warnings = sortErrors(f.Warnings)
	return f, nil
}

// override sets o's key in the decoded document raw, creating the tables
// on its path, and remembers the flag for the messages about it. Only
// paths of plain tables are supported (no array elements).
func (f *File) override(raw map[string]any, o Override) error {
	segs := strings.Split(o.Path, ".")
	m := raw
	for _, seg := range segs[:len(segs)-1] {
		next, ok := m[seg].(map[string]any)
		if !ok {
			if _, there := m[seg]; there {
				return fmt.Errorf("%s: %s: %s is not a table", f.Path, o.Flag, seg)
			}
			next = map[string]any{}
			m[seg] = next
		}
		m = next
	}
	m[segs[len(segs)-1]] = o.Value
	if f.flags == nil {
		f.flags = map[string]string{}
	}
	f.flags[o.Path] = o.Flag
	return nil
}

// utf8BOM is the byte order mark some editors write at the start of a
// UTF-8 file; TOML does not allow it, and it carries nothing.
var utf8BOM = []byte("\xEF\xBB\xBF")

func syntaxError(path string, err error) error {
	var de *toml.DecodeError
	e := &Error{File: path, Line: 1, Col: 1, Msg: clipMessage(strings.TrimPrefix(err.Error(), "toml: "))}
	if errors.As(err, &de) {
		e.Line, e.Col = de.Position()
	}
	return Errors{e}
}
