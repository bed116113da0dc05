package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/streamerd/streamerd/rt/cpu"
)

// decoder walks the generic decoded document with a schema written as
// code: every key a table may hold is asked for by name, and the keys left
// over are unknown. All problems are collected.
type decoder struct {
	f     *File
	errs  []*Error
	bad   map[string]bool // canonical paths of the keys reported so far
	known map[string]bool // every key the schema asked for (tests check the docs)
}

// tbl is one TOML table being decoded.
type tbl struct {
	d    *decoder
	path string // canonical path, "" for the root
	m    map[string]any
	keys []string // keys the schema knows, in schema order
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
	t.keys = append(t.keys, key)
	if t.d.known != nil {
		t.d.known[key] = true
	}
	v, ok := t.m[key]
	return v, ok
}

// has reports whether key is present without marking it known.
func (t *tbl) has(key string) bool { _, ok := t.m[key]; return ok }

// forbid marks key known but reports it as misplaced when present.
func (t *tbl) forbid(key, why string) {
	if _, ok := t.get(key); ok {
		t.errf(key, "%s", why)
	}
}

// done reports every key the schema did not ask for.
func (t *tbl) done() {
	known := make(map[string]bool, len(t.keys))
	for _, k := range t.keys {
		known[k] = true
	}
	var unknown []string
	for k := range t.m {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		msg := message("unknown key %q", k)
		for _, c := range t.keys {
			if strings.EqualFold(c, k) {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
				break
			}
		}
		msg += "; expected one of " + strings.Join(uniq(t.keys), ", ")
		t.d.errs = append(t.d.errs, t.d.f.errKey(t.path, k, msg))
	}
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range s {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// kind names the TOML type of a decoded value.
func kind(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + quote(v)
	case int64:
		return "integer " + strconv.FormatInt(v, 10)
	case float64:
		return "float " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return "date/time"
}

func (t *tbl) missing(key, what string) {
	t.errf(key, "required key is missing (expected %s)", what)
}

func (t *tbl) wrong(key, what string, v any) {
	t.errf(key, "expected %s, got %s", what, kind(v))
}

// str returns a string value, def when absent.
func (t *tbl) str(key, def string) string { return typed(t, key, def, "a string") }

// typed returns the value of key when it has the TOML type of T (what
// names it in the error), def when absent or of another type.
func typed[T any](t *tbl, key string, def T, what string) T {
	v, ok := t.get(key)
	if !ok {
		return def
	}
	x, ok := v.(T)
	if !ok {
		t.wrong(key, what, v)
		return def
	}
	return x
}

// reqStr returns a required non-empty string.
func (t *tbl) reqStr(key string) string {
	if !t.has(key) {
		t.get(key)
		t.missing(key, "a string")
		return ""
	}
	s := t.str(key, "")
	if s == "" && t.isString(key) {
		t.errf(key, "must not be empty")
	}
	return s
}

func (t *tbl) isNumber(key string) bool {
	switch n := t.m[key].(type) {
	case int64:
		return true
	case float64:
		return !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return false
}

func (t *tbl) isString(key string) bool { _, ok := t.m[key].(string); return ok }

// enum returns one of allowed, def when absent.
func (t *tbl) enum(key, def string, allowed ...string) string {
	if !t.has(key) {
		t.get(key)
		return def
	}
	s := t.str(key, def)
	if !t.isString(key) {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	q := make([]string, len(allowed))
	for i, a := range allowed {
		q[i] = strconv.Quote(a)
	}
	t.errf(key, "expected one of %s, got %q", strings.Join(q, ", "), s)
	return def
}

// integer returns an integer in [min, max], def when absent.
func (t *tbl) integer(key string, def, min, max int64) int64 {
	v, ok := t.get(key)
	if !ok {
		return def
	}
	n, ok := v.(int64)
	if !ok {
		what := fmt.Sprintf("an integer %d..%d", min, max)
		if min == math.MinInt32 && max == math.MaxInt32 {
			what = "an integer"
		}
		t.wrong(key, what, v)
		return def
	}
	if n < min || n > max {
		t.errf(key, "must be %d..%d, got %d", min, max, n)
		return def
	}
	return n
}

// int returns an integer for a Go int field whose range the producer
// checks; beyond 32 bits it is refused here, so the producer sees the
// value as written on every platform.
func (t *tbl) int(key string, def int) int {
	return int(t.integer(key, int64(def), math.MinInt32, math.MaxInt32))
}

// nonZeroInt returns an integer for a field whose zero value means the
// producer's default, def when absent; written as 0, it is an error rather
// than a silent default.
func (t *tbl) nonZeroInt(key string, def int) int {
	n := t.int(key, def)
	t.notZero(key, n == 0)
	return n
}

// nonZeroFloat is nonZeroInt for a number.
func (t *tbl) nonZeroFloat(key string, def float64) float64 {
	x := t.float(key, def)
	t.notZero(key, x == 0)
	return x
}

func (t *tbl) notZero(key string, zero bool) {
	if zero && t.has(key) && !t.failed(key) {
		t.errf(key, "must not be 0 (leave %s out for its default)", key)
	}
}

// float returns a finite number (an integer is accepted), def when absent.
func (t *tbl) float(key string, def float64) float64 {
	v, ok := t.get(key)
	if !ok {
		return def
	}
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			t.errf(key, "must be a finite number, got %v", n)
			return def
		}
		return n
	case int64:
		return float64(n)
	}
	t.wrong(key, "a number", v)
	return def
}

// floatIn returns a finite number in [min, max].
func (t *tbl) floatIn(key string, def, min, max float64) float64 {
	x := t.float(key, def)
	if x < min || x > max {
		t.errf(key, "must be %g..%g, got %g", min, max, x)
		return def
	}
	return x
}

func (t *tbl) boolean(key string, def bool) bool {
	return typed(t, key, def, "a boolean (true or false)")
}

// strings returns an array of strings.
func (t *tbl) strings(key string) []string {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		t.wrong(key, "an array of strings", v)
		return nil
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			t.d.errf(t.at(key)+"["+strconv.Itoa(i)+"]", "expected a string, got %s", kind(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// cpuMask reads a CPU mask written as a string ("0x2") or an integer.
func (t *tbl) cpuMask(key string) cpu.Mask {
	v, ok := t.get(key)
	if !ok {
		return 0
	}
	switch n := v.(type) {
	case int64:
		if n < 0 {
			t.errf(key, "must not be negative, got %d", n)
			return 0
		}
		return cpu.Mask(n)
	case string:
		m, err := cpu.ParseMask(n)
		if err != nil {
			t.errf(key, "expected a CPU bit mask such as \"0x2\", \"0b10\" or 2, got %q", n)
			return 0
		}
		return m
	}
	t.wrong(key, "a CPU bit mask (string such as \"0x2\" or integer)", v)
	return 0
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

// Parse strictly decodes and validates a configuration. path is used in
// error messages only. On failure it returns a nil *File and an Errors
// value with every problem found.
func Parse(path string, data []byte) (*File, error) {
	return parse(path, data, nil)
}

func parse(path string, data []byte, known map[string]bool) (*File, error) {
	f := &File{Path: path}
	data = bytes.TrimPrefix(data, utf8BOM) // as editors on Windows write it
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return nil, syntaxError(path, err)
	}
	f.raw = raw
	f.ix = buildIndex(data)
	d := &decoder{f: f, bad: map[string]bool{}, known: known}
	root := &tbl{d: d, m: raw}
	d.decode(root)
	d.validate()
	if len(d.errs) > 0 {
		return nil, sortErrors(d.errs)
	}
	d.warn()
	f.Warnings = sortErrors(f.Warnings)
	return f, nil
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

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
