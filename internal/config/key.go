package config

import (
	"reflect"
	"slices"
)

// key declares one key of a table whose decoded form is an S, once: its
// name, its TOML type with the range or values it allows, its default, its
// unit and its doc. The same declaration reads the key into its field,
// checks it, prints it in -describe and writes its row of docs/config.md.
// Build one with field (or custom for a key whose value is a table) and
// chain the options.
type key[S any] struct {
	name     string
	kind     string // TOML type as the docs name it: "integer", "string", ...
	allowed  string // range or values the type allows, for the docs: "1..65535"
	unit     string
	def      string // the default as the docs show it; "" shows none
	doc      string
	required string // what a required key expects ("a string"); "" when optional
	nonZero  bool
	checks   []func(s *S) string

	read  func(t *tbl, s *S) // sets the field from the key, when present
	show  func(s *S) string  // the field's value as a TOML literal, for -describe
	text  func(s *S) string  // a string field's value; nil for other types
	isSet func(s *S) bool    // the field holds a non-zero value
}

// field declares key name, of type typ, stored at ptr. Its default is
// what the field holds before the key is read: the table's defaults.
func field[S, T any](name string, typ valueType[T], ptr func(*S) *T) key[S] {
	k := key[S]{name: name, kind: typ.kind, allowed: typ.allowed}
	k.read = func(t *tbl, s *S) {
		v, ok := t.get(name)
		if !ok {
			return
		}
		if x, ok := typ.read(at{t, name}, v); ok {
			*ptr(s) = x
		}
	}
	k.show = func(s *S) string { return typ.format(*ptr(s)) }
	k.isSet = func(s *S) bool { return !isZero(*ptr(s)) }
	if _, ok := any(new(T)).(*string); ok {
		k.text = func(s *S) string { return any(*ptr(s)).(string) }
	}
	return k
}

// custom declares a key whose value read decodes itself (an array of
// tables, a sub-table); kind names its TOML type in the docs.
func custom[S any](name, kind string, read func(t *tbl, s *S)) key[S] {
	return key[S]{name: name, kind: kind, read: read}
}

// via declares in a table whose decoded form S holds a T (at part) the
// key k of T's table: the same name, type, checks and docs, read into and
// shown from that T. A class that takes another class's key with the same
// meaning reuses its declaration this way.
func via[S, T any](k key[T], part func(*S) *T) key[S] {
	out := key[S]{name: k.name, kind: k.kind, allowed: k.allowed, unit: k.unit, def: k.def, doc: k.doc,
		required: k.required, nonZero: k.nonZero}
	out.read = func(t *tbl, s *S) { k.read(t, part(s)) }
	if k.show != nil {
		out.show = func(s *S) string { return k.show(part(s)) }
	}
	if k.text != nil {
		out.text = func(s *S) string { return k.text(part(s)) }
	}
	if k.isSet != nil {
		out.isSet = func(s *S) bool { return k.isSet(part(s)) }
	}
	for _, rule := range k.checks {
		out.checks = append(out.checks, func(s *S) string { return rule(part(s)) })
	}
	return out
}

// viaEach is via for every key of keys.
func viaEach[S, T any](keys []key[T], part func(*S) *T) []key[S] {
	out := make([]key[S], len(keys))
	for i, k := range keys {
		out[i] = via(k, part)
	}
	return out
}

// insertBefore returns keys with k inserted before the key called name
// (at the end when there is none).
func insertBefore[S any](keys []key[S], name string, k key[S]) []key[S] {
	i := 0
	for i < len(keys) && keys[i].name != name {
		i++
	}
	return slices.Insert(keys, i, k)
}

// find returns the declaration of key name in tb; a name tb does not
// declare is a bug of the declarations, found when the package
// initialises.
func (tb *table[S]) find(name string) key[S] {
	for _, k := range tb.keys {
		if k.name == name {
			return k
		}
	}
	panic("config: table " + tb.name + " declares no key " + name)
}

func isZero[T any](v T) bool { return reflect.ValueOf(&v).Elem().IsZero() }

// Doc sets the one-line description: what the key does, and any rule the
// type does not say.
func (k key[S]) Doc(doc string) key[S] { k.doc = doc; return k }

// Unit sets the unit of a number.
func (k key[S]) Unit(unit string) key[S] { k.unit = unit; return k }

// Default sets the default as the docs show it, when the field's starting
// value does not say it (a producer default, one that depends on other
// keys).
func (k key[S]) Default(shown string) key[S] { k.def = shown; return k }

// Required makes the key required; what is the value it expects, for the
// message when it is missing.
func (k key[S]) Required(what string) key[S] { k.required = what; return k }

// NotEmpty refuses a string key written empty.
func (k key[S]) NotEmpty() key[S] {
	text := k.stringField("NotEmpty")
	return k.Check(func(s *S) string {
		if text(s) == "" {
			return "must not be empty"
		}
		return ""
	})
}

// NonZero refuses a 0 written for a field whose zero value means the
// producer's default (a file asks for the default by leaving the key out).
func (k key[S]) NonZero() key[S] { k.nonZero = true; return k }

// Check adds a rule on the decoded table, reported at this key when the
// file writes it: rule returns the message, "" when the rule holds.
func (k key[S]) Check(rule func(s *S) string) key[S] {
	k.checks = append(k.checks, rule)
	return k
}

// Only refuses the key, when written, unless applies holds: why says when
// it applies ("applies only to ...").
func (k key[S]) Only(applies func(s *S) bool, why string) key[S] {
	return k.Check(func(s *S) string {
		if applies(s) {
			return ""
		}
		return why
	})
}

// Printable refuses a string with characters that have no place in a name
// or unit printed by the tools and in logs (see badRune).
func (k key[S]) Printable() key[S] {
	text := k.stringField("Printable")
	return k.Check(func(s *S) string {
		if at, r, ok := badRune(text(s)); ok {
			return message("must not contain control or format characters (%U at byte %d), got %q", r, at, text(s))
		}
		return ""
	})
}

// stringField returns the accessor of a string key for option; a
// declaration that gives a string option to another type is a bug of the
// declarations, found when the package initialises.
func (k key[S]) stringField(option string) func(*S) string {
	if k.text == nil {
		panic("config: " + option + " on key " + k.name + ", which is not a string")
	}
	return k.text
}

// table is the declaration of a TOML table: its keys in the order the
// docs list them, the values an absent key leaves (defaults), and the
// rules between keys that no single key declares (finish).
type table[S any] struct {
	name     string // the docs section: "App", "Threads", "UDPStreamer", ...
	keys     []key[S]
	defaults func(s *S) // sets the fields whose default is not their zero value
	finish   func(t *tbl, s *S)
}

// decode reads every key of tb from t into a new S.
func (tb *table[S]) decode(t *tbl) S {
	var s S
	tb.read(t, &s)
	return s
}

// read sets the defaults of tb in s, reads every key of tb from t, then
// checks the rules of the keys the file writes and the table's own. It
// does not report the unknown keys (t.done), since a table may hold the
// keys of several declarations.
func (tb *table[S]) read(t *tbl, s *S) {
	if tb.defaults != nil {
		tb.defaults(s)
	}
	for i := range tb.keys {
		k := &tb.keys[i]
		present := t.has(k.name)
		k.read(t, s)
		switch {
		case !present && k.required != "":
			t.missing(k.name, k.required)
		case !present || t.failed(k.name):
		case k.nonZero && k.isSet != nil && !k.isSet(s):
			t.errf(k.name, "must not be 0 (leave %s out for its default)", k.name)
		}
	}
	for i := range tb.keys {
		k := &tb.keys[i]
		if !t.has(k.name) || t.failed(k.name) {
			continue
		}
		for _, rule := range k.checks {
			if msg := rule(s); msg != "" {
				t.errf(k.name, "%s", msg)
				break
			}
		}
	}
	if tb.finish != nil {
		tb.finish(t, s)
	}
}

// forbid marks the keys of tb known in t and refuses each one written:
// why says where they apply.
func (tb *table[S]) forbid(t *tbl, why string) {
	for i := range tb.keys {
		if _, ok := t.get(tb.keys[i].name); ok {
			t.errf(tb.keys[i].name, "%s", why)
		}
	}
}
