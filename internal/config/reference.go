package config

import (
	"strconv"
	"strings"
)

// section is a table declaration as docs/config.md and -describe see it,
// whatever the Go type it decodes into.
type section interface {
	title() string
	rows() []row
	// settings returns the value of every key of v (an *S) and whether
	// the file wrote it (spelled, by key name).
	settings(v any, spelled func(key string) bool) []Setting
}

// row is one key of the reference: its docs/config.md row.
type row struct{ key, kind, def, rule string }

func (tb *table[S]) title() string { return tb.name }

func (tb *table[S]) rows() []row {
	var d S
	if tb.defaults != nil {
		tb.defaults(&d)
	}
	out := make([]row, 0, len(tb.keys))
	for i := range tb.keys {
		k := &tb.keys[i]
		r := row{key: "`" + k.name + "`", kind: k.kind, def: k.def}
		switch {
		case k.def != "":
		case k.required != "":
			r.def = "required"
		case k.show != nil:
			r.def = "`" + k.show(&d) + "`"
		case k.kind == "table":
			r.def = "`{}`"
		default:
			r.def = "—"
		}
		r.rule = joinNonEmpty(joinNonEmpty(k.unit, ", ", k.allowed), "; ", k.doc)
		if k.allowed == "" {
			r.rule = joinNonEmpty(k.unit, ", ", k.doc)
		}
		out = append(out, r)
	}
	return out
}

// joinNonEmpty joins a and b with sep, or returns the one that is not
// empty.
func joinNonEmpty(a, sep, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// Setting is one key of a table as -describe prints it: its value as a
// TOML literal, and whether the file left it to its default.
type Setting struct {
	Key, Value string
	Default    bool
}

func (tb *table[S]) settings(v any, spelled func(string) bool) []Setting {
	s, ok := v.(*S)
	if !ok {
		return nil
	}
	var out []Setting
	for i := range tb.keys {
		k := &tb.keys[i]
		if k.show == nil {
			continue
		}
		st := Setting{Key: k.name, Value: k.show(s), Default: !spelled(k.name)}
		if st.Default && k.def != "" {
			st.Value = strings.ReplaceAll(k.def, "`", "") // the producer's default, which its zero value stands for
		}
		out = append(out, st)
	}
	return out
}

// Settings returns the keys of the datasource class of DataSources[i]
// with their values, for -describe: what the producer was given, the
// defaults it fills in included. It returns nil for an index out of range.
func (f *File) Settings(i int) []Setting {
	if i < 0 || i >= len(f.DataSources) {
		return nil
	}
	ds := &f.DataSources[i]
	c, ok := classes[ds.Class]
	if !ok {
		return nil
	}
	var v any
	switch {
	case ds.UDPStreamer != nil:
		v = ds.UDPStreamer
	case ds.RD100S != nil:
		v = ds.RD100S
	case ds.FlatUDP != nil:
		v = ds.FlatUDP
	case ds.Replay != nil:
		v = ds.Replay
	}
	base := "DataSources[" + strconv.Itoa(i) + "]."
	return c.doc.settings(v, func(key string) bool { return f.spelled(base + key) })
}

// sections are the tables of the reference, in the order of
// docs/config.md.
var sections = []section{
	&fileKeys, &appKeys, &threadKeys, &gamKeys, &outputKeys, &waveformKeys, &iogamKeys, &textKeys,
	&dataSourceKeys, &signalKeys, &udpsSignalKeys, &udpStreamerKeys, &rd100sKeys, &degradationKeys, &flatUDPKeys, &replayKeys,
}
