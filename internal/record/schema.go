package record

import (
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/streamerd/streamerd/datasource"
)

// schemaName is the name of the schema's root.
const schemaName = "streamerd"

// Schema returns the Parquet schema of the layout: one required leaf per
// column, in the layout's order.
func (l *Layout) Schema() *parquet.Schema {
	g := make(orderedGroup, len(l.Columns))
	for i, c := range l.Columns {
		n := leafOf(c.Type)
		if c.kind == kTime {
			n = parquet.Timestamp(parquet.Nanosecond)
		}
		g[i] = &field{Node: n, name: c.Name}
	}
	return parquet.NewSchema(schemaName, g)
}

// leafOf returns the leaf node that stores elements of t: integers (and
// char8, as uint8) with their width and signedness, floats as FLOAT and
// DOUBLE.
func leafOf(t datasource.Type) parquet.Node {
	switch {
	case t == datasource.Float32:
		return parquet.Leaf(parquet.FloatType)
	case t == datasource.Float64 || !t.Valid():
		return parquet.Leaf(parquet.DoubleType)
	case t.Signed():
		return parquet.Int(8 * t.Size())
	}
	return parquet.Uint(8 * t.Size())
}

// orderedGroup is a group node whose fields keep the order they were given
// in (parquet.Group sorts them by name, which would put Ch[10] before
// Ch[2]).
type orderedGroup []*field

type field struct {
	parquet.Node
	name string
}

func (f *field) Name() string { return f.name }

// Value is for writers of Go values, which the recorder is not.
func (f *field) Value(base reflect.Value) reflect.Value { return reflect.Value{} }

func (g orderedGroup) ID() int                     { return 0 }
func (g orderedGroup) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g orderedGroup) Optional() bool              { return false }
func (g orderedGroup) Repeated() bool              { return false }
func (g orderedGroup) Required() bool              { return true }
func (g orderedGroup) Leaf() bool                  { return false }
func (g orderedGroup) Encoding() encoding.Encoding { return nil }
func (g orderedGroup) Compression() compress.Codec { return nil }
func (g orderedGroup) GoType() reflect.Type        { return reflect.TypeFor[map[string]any]() }
func (g orderedGroup) Fields() []parquet.Field {
	fs := make([]parquet.Field, len(g))
	for i, f := range g {
		fs[i] = f
	}
	return fs
}

func (g orderedGroup) String() string {
	var b strings.Builder
	b.WriteString("group {")
	for i, f := range g {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.name)
	}
	b.WriteString("}")
	return b.String()
}
