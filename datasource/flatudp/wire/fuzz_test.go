package wire

import (
	"errors"
	"reflect"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

var seedLists = [][]Signal{
	{{"Trigger", datasource.Uint8, 1, false}, {"Ia", datasource.Float32, 1, false}, {"Wave", datasource.Float32, 16, false}},
	{{"Wave", datasource.Float32, 16, true}, {"Cur", datasource.Int16, 16, true}},
	{{"Counter", datasource.Uint32, 1, false}, {"Time", datasource.Uint32, 1, false}, {"F", datasource.Float32, 1, false},
		{"D", datasource.Float64, 1, false}, {"V", datasource.Uint16, 4, false}},
	{{"a", datasource.Int8, 3, false}, {"b", datasource.Int64, 2, false}, {"c", datasource.Uint64, 1, false}, {"d", datasource.Float64, 4096, false}},
	{{"Counter", datasource.Uint32, 1, false}, {"Label", datasource.Char8, 8, false}, {"V", datasource.Float32, 1, false}},
}

// FuzzParseSignals: whatever parses is valid, formats canonically, and
// parses back to the same list.
func FuzzParseSignals(f *testing.F) {
	for _, sigs := range seedLists {
		f.Add(FormatSignals(sigs))
	}
	f.Add(" a : UINT8 , b:float32[ 3 ]w")
	f.Add("a:float32[4097]")
	f.Add("a:uint8,,b:int8")
	f.Add("a[1]:uint8")
	f.Fuzz(func(t *testing.T, s string) {
		sigs, err := parseSignals(s)
		if err != nil {
			var se *signalError
			if !errors.As(err, &se) {
				t.Fatalf("parseSignals(%q) error %T %v is not a *signalError", s, err, err)
			}
			return
		}
		if err := validate(sigs); err != nil {
			t.Fatalf("parseSignals(%q) returned an invalid list: %v", s, err)
		}
		canon := FormatSignals(sigs)
		again, err := parseSignals(canon)
		if err != nil {
			t.Fatalf("parseSignals(FormatSignals(%q) = %q): %v", s, canon, err)
		}
		if !reflect.DeepEqual(again, sigs) {
			t.Fatalf("round trip of %q: %+v, want %+v", s, again, sigs)
		}
		if FormatSignals(again) != canon {
			t.Fatalf("format of %q is not canonical", s)
		}
		if _, err := NewLayout(sigs); err != nil {
			t.Fatalf("NewLayout: %v", err)
		}
	})
}

// FuzzDecode: Decode never panics; a datagram of the layout's size decodes
// and agrees with DecodeRaw, its fields of their signals' sizes; any other
// size is ErrSize. (internal/flatenc's FuzzRoundTrip re-encodes the
// elements in either order.)
func FuzzDecode(f *testing.F) {
	for _, sigs := range seedLists {
		l, err := NewLayout(sigs)
		if err != nil {
			f.Fatal(err)
		}
		dg := make([]byte, l.Size)
		for k := range dg {
			dg[k] = byte(0x5B * (k + 1))
		}
		for _, order := range []ByteOrder{Little, Big} {
			f.Add(FormatSignals(sigs), dg, order == Big)
			f.Add(FormatSignals(sigs), dg[:len(dg)-1], order == Big)
		}
	}
	f.Add(handBuilt.signals, handDatagram(Big), true)
	f.Fuzz(func(t *testing.T, s string, dg []byte, big bool) {
		sigs, err := parseSignals(s)
		if err != nil {
			return
		}
		l, err := NewLayout(sigs)
		if err != nil {
			t.Fatal(err)
		}
		order := Little
		if big {
			order = Big
		}
		vals := make([]float64, l.TotalElements())
		raw := make([]uint64, l.TotalElements())
		err = l.Decode(vals, dg, order)
		rerr := l.DecodeRaw(raw, dg, order)
		if len(dg) != l.Size {
			if err != ErrSize || rerr != ErrSize {
				t.Fatalf("%d bytes for a %d-byte layout: %v, %v", len(dg), l.Size, err, rerr)
			}
			return
		}
		if err != nil || rerr != nil {
			t.Fatalf("Decode: %v, %v", err, rerr)
		}
		for k := range vals {
			if got := elementType(l, k).Float64(raw[k]); !sameFloat(got, vals[k]) {
				t.Fatalf("element %d: Decode %v, Float64 of the raw bits %v", k, vals[k], got)
			}
		}
		for i, sig := range l.Signals {
			if len(l.Field(dg, i)) != sig.size() {
				t.Fatalf("signal %d: field of %d bytes, want %d", i, len(l.Field(dg, i)), sig.size())
			}
		}
	})
}
