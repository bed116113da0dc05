package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

func TestTypes(t *testing.T) {
	want := []struct {
		name string
		size int
	}{{"uint8", 1}, {"int8", 1}, {"uint16", 2}, {"int16", 2}, {"uint32", 4}, {"int32", 4},
		{"uint64", 8}, {"int64", 8}, {"float32", 4}, {"float64", 8}, {"char8", 1}}
	for code, w := range want {
		typ := datasource.Type(code)
		for _, spelling := range []string{w.name, strings.ToUpper(w.name)} {
			sigs, err := parseSignals("a:" + spelling)
			if err != nil || sigs[0].Type != typ || sigs[0].size() != w.size {
				t.Errorf("parseSignals(a:%s) = %v, %v", spelling, sigs, err)
			}
		}
		if got := string(Signal{Name: "a", Type: typ, Count: 1}.appendText(nil)); got != "a:"+w.name {
			t.Errorf("%v row = %q", typ, got)
		}
	}
	for _, bad := range []string{"float", "uint128", "float32w"} {
		if _, err := parseSignals("a:" + bad); err == nil {
			t.Errorf("parseSignals(a:%s) succeeded", bad)
		}
	}
	if Little.String() != "little" || Big.String() != "big" {
		t.Errorf("ByteOrder strings %q %q", Little, Big)
	}
}

func TestParseFormatRoundTrip(t *testing.T) {
	cases := []struct {
		in, canon string
		want      []Signal
	}{
		{"Trigger:uint8,Ia:float32,Wave:float32[16]", "",
			[]Signal{{"Trigger", datasource.Uint8, 1, false}, {"Ia", datasource.Float32, 1, false}, {"Wave", datasource.Float32, 16, false}}},
		{"Wave:float32[16]w", "", []Signal{{"Wave", datasource.Float32, 16, true}}},
		{"A:int16[4]w,B:int16[4]w", "", []Signal{{"A", datasource.Int16, 4, true}, {"B", datasource.Int16, 4, true}}},
		{" Trigger : UINT8 , Ia:float64[1] ,W: float32 [ 8 ] w ", "Trigger:uint8,Ia:float64,W:float32[8]w",
			[]Signal{{"Trigger", datasource.Uint8, 1, false}, {"Ia", datasource.Float64, 1, false}, {"W", datasource.Float32, 8, true}}},
		{"x:uint64[0004096]", "x:uint64[4096]", []Signal{{"x", datasource.Uint64, 4096, false}}},
		{"Counter:uint32,Label:char8[8],C:CHAR8", "Counter:uint32,Label:char8[8],C:char8",
			[]Signal{{"Counter", datasource.Uint32, 1, false}, {"Label", datasource.Char8, 8, false}, {"C", datasource.Char8, 1, false}}},
		{"Counter:uint32,Time:uint32,F:float32,D:float64,V:uint16[4]", "",
			[]Signal{{"Counter", datasource.Uint32, 1, false}, {"Time", datasource.Uint32, 1, false}, {"F", datasource.Float32, 1, false},
				{"D", datasource.Float64, 1, false}, {"V", datasource.Uint16, 4, false}}},
		{"a:int8,b:int32,c:int64,d:uint16", "",
			[]Signal{{"a", datasource.Int8, 1, false}, {"b", datasource.Int32, 1, false}, {"c", datasource.Int64, 1, false}, {"d", datasource.Uint16, 1, false}}},
	}
	for _, c := range cases {
		got, err := parseSignals(c.in)
		if err != nil {
			t.Errorf("parseSignals(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSignals(%q) = %+v, want %+v", c.in, got, c.want)
		}
		canon := c.canon
		if canon == "" {
			canon = c.in
		}
		if f := FormatSignals(got); f != canon {
			t.Errorf("FormatSignals(parseSignals(%q)) = %q, want %q", c.in, f, canon)
		}
		again, err := parseSignals(FormatSignals(got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("round trip of %q: %+v, %v", c.in, again, err)
		}
	}
	// The MARTe2 RealTimeThread example of the README: 28 bytes.
	sigs, _ := parseSignals("Counter:uint32,Time:uint32,F:float32,D:float64,V:uint16[4]")
	if n := totalSize(sigs); n != 28 {
		t.Errorf("TotalSize = %d, want 28", n)
	}
	if n := totalElements(sigs); n != 8 {
		t.Errorf("TotalElements = %d, want 8", n)
	}
}

// TestRules checks every validity rule: the error is a *signalError whose
// message names the signal (or row) and the rule.
func TestRules(t *testing.T) {
	cases := []struct {
		in   string
		row  int    // 0-based; -1 for the list
		name string // the signal named in the message
		rule string // a fragment of the rule
	}{
		{"", -1, "", "at least one signal"},
		{"   ", -1, "", "at least one signal"},
		{"a:uint8,", 1, "", "empty row"},
		{"a:uint8,,b:uint8", 1, "", "empty row"},
		{"a", 0, "a", "missing \":type\""},
		{":uint8", 0, "", "name is empty"},
		{"a:uint8,a:int8", 1, "a", "duplicate name (also row 1)"},
		{"a:uint8,b:int8,a:float32", 2, "a", "duplicate name (also row 1)"},
		{"a:uint9", 0, "a", "unknown type \"uint9\""},
		{"a:float32w", 0, "a", "written type[count]w"},
		{"a:float32[16", 0, "a", "missing \"]\""},
		{"a:float32[]", 0, "a", "not a decimal number"},
		{"a:float32[-1]", 0, "a", "not a decimal number"},
		{"a:float32[+4]", 0, "a", "not a decimal number"},
		{"a:float32[0x10]", 0, "a", "not a decimal number"},
		{"a:float32[0]", 0, "a", "count 0 is outside 1..4096"},
		{"a:float32[4097]", 0, "a", "count 4097 is outside 1..4096"},
		{"a:float32[99999999999999999999]", 0, "a", "outside 1..4096"},
		{"a:float32[4]x", 0, "a", "only \"w\" may follow"},
		{"a:float32[4]ww", 0, "a", "only \"w\" may follow"},
		{"a:float32[1]w", 0, "a", "waveform (w) needs count > 1"},
		{"a[2]:float32", 0, "a[2]", "reserved by the signals string"},
		{"a]:float32", 0, "a]", "reserved"},
		{"a:b:float32", 0, "a", "unknown type \"b:float32\""},
		{"a:float64[4096],b:float64[4092],c:uint8[4]", 2, "c", "total size reaches 65508 bytes, over the 65507-byte"},
	}
	for _, c := range cases {
		_, err := parseSignals(c.in)
		var se *signalError
		if !errors.As(err, &se) {
			t.Errorf("parseSignals(%q) = %v, want a *signalError", c.in, err)
			continue
		}
		if se.row != c.row || se.name != c.name || !strings.Contains(se.rule, c.rule) {
			t.Errorf("parseSignals(%q): row %d name %q rule %q, want row %d name %q rule containing %q",
				c.in, se.row, se.name, se.rule, c.row, c.name, c.rule)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.rule) || (c.name != "" && !strings.Contains(msg, `"`+c.name+`"`)) {
			t.Errorf("message %q does not name signal %q and rule %q", msg, c.name, c.rule)
		}
		if c.row >= 0 && !strings.Contains(msg, "(row ") {
			t.Errorf("message %q does not name the row", msg)
		}
	}

	// Exactly at the limit is valid.
	ok := []Signal{{"a", datasource.Float64, 4096, false}, {"b", datasource.Float64, 4092, false}, {"c", datasource.Uint8, 3, false}}
	if n := totalSize(ok); n != MaxDatagramSize {
		t.Fatalf("test list is %d bytes", n)
	}
	if err := validate(ok); err != nil {
		t.Errorf("validate(65507 bytes) = %v", err)
	}

	// Rules that the string cannot express, on hand-built lists.
	structCases := []struct {
		sigs []Signal
		rule string
	}{
		{nil, "at least one signal"},
		{[]Signal{{"a", datasource.Type(11), 1, false}}, "invalid type Type(11)"},
		{[]Signal{{"a", datasource.Char8, 8, true}}, "a char8 row is text, not a waveform"},
		{[]Signal{{" a", datasource.Uint8, 1, false}}, "leading or trailing spaces"},
		{[]Signal{{"a\n", datasource.Uint8, 1, false}}, "leading or trailing spaces"},
		{[]Signal{{"a\x01b", datasource.Uint8, 1, false}}, "control character"},
		{[]Signal{{"a,b", datasource.Uint8, 1, false}}, "','"},
		{[]Signal{{"a:b", datasource.Uint8, 1, false}}, "':'"},
		{[]Signal{{"a", datasource.Uint8, -3, false}}, "count -3 is outside"},
		{[]Signal{{"a", datasource.Uint8, 1, true}}, "needs count > 1"},
	}
	for _, c := range structCases {
		err := validate(c.sigs)
		if err == nil || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("validate(%+v) = %v, want rule %q", c.sigs, err, c.rule)
		}
	}
}

func TestFormatSignals(t *testing.T) {
	sigs := []Signal{{"T", datasource.Uint8, 1, false}, {"W", datasource.Int64, 3, true}, {"V", datasource.Float32, 2, false}}
	if got := FormatSignals(sigs); got != "T:uint8,W:int64[3]w,V:float32[2]" {
		t.Errorf("FormatSignals = %q", got)
	}
	if got := string(appendSignals([]byte("x="), sigs[:1])); got != "x=T:uint8" {
		t.Errorf("AppendSignals = %q", got)
	}
	if got := string(sigs[1].appendText(nil)); got != "W:int64[3]w" {
		t.Errorf("Signal.appendText = %q", got)
	}
	if FormatSignals(nil) != "" {
		t.Error("FormatSignals(nil) not empty")
	}
}
