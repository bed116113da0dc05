package app

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/quant"
)

// Operator values are base 10: a prefix or an underscore is refused rather
// than read in another base, and a leading zero is not octal.
func TestParseValueBase10(t *testing.T) {
	u16 := &datasource.Signal{Name: "U", Type: datasource.Uint16}
	i32 := &datasource.Signal{Name: "I", Type: datasource.Int32}
	f64 := &datasource.Signal{Name: "F", Type: datasource.Float64}
	for _, tc := range []struct {
		sig  *datasource.Signal
		text string
		want string // formatted back, or "" for an error
	}{
		{u16, "010", "10"},
		{u16, "+7", "7"},
		{u16, " 65535 ", "65535"},
		{u16, "0x10", ""},
		{u16, "0b11", ""},
		{u16, "0o7", ""},
		{u16, "1_0", ""},
		{u16, "65536", ""},
		{u16, "-1", ""},
		{u16, "", ""},
		{i32, "-010", "-10"},
		{i32, "-2147483648", "-2147483648"},
		{i32, "0x7fffffff", ""},
		{f64, "1.5", "1.5"},
		{f64, "-2e-3", "-0.002"},
		{f64, ".5", "0.5"},
		{f64, "010", "10"},
		{f64, "inf", "+Inf"},
		{f64, "-Infinity", "-Inf"},
		{f64, "NaN", "NaN"},
		{f64, "0x1p4", ""},
		{f64, "1_0", ""},
		{f64, "0x10", ""},
		{f64, "1e999", ""},
		{f64, "1..2", ""},
	} {
		b, err := parseValue(tc.sig, tc.text)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s %q: accepted as %s", tc.sig.Type, tc.text, formatValue(tc.sig, b, 100))
		case tc.want != "" && err != nil:
			t.Errorf("%s %q: %v", tc.sig.Type, tc.text, err)
		case tc.want != "" && formatValue(tc.sig, b, 100) != tc.want:
			t.Errorf("%s %q = %s, want %s", tc.sig.Type, tc.text, formatValue(tc.sig, b, 100), tc.want)
		}
	}
}

// A value longer than the signal's elements × the longest literal of its
// type is refused before it is split, and the error does not echo it.
func TestParseValueLengthBound(t *testing.T) {
	sig := &datasource.Signal{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 4}
	if got := maxValueLen(sig); got != 4*(4+2) {
		t.Fatalf("maxValueLen uint8[4] = %d", got)
	}
	ok := "255, 255, 255, +255"
	if _, err := parseValue(sig, ok); err != nil {
		t.Fatalf("%q: %v", ok, err)
	}
	huge := strings.Repeat("1,", 4<<20)
	_, err := parseValue(sig, huge)
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "at most 24 for uint8[4]") {
		t.Fatalf("9 MB value: %.300v", err)
	}
	one := &datasource.Signal{Name: "S", Type: datasource.Float32}
	if _, err = parseValue(one, "1"+strings.Repeat("0", 40)); err == nil || !strings.Contains(err.Error(), "longer than 40") {
		t.Fatalf("41-digit float32: %v", err)
	}
	for typ, v := range map[datasource.Type]string{datasource.Uint64: "+18446744073709551615",
		datasource.Int64: "-9223372036854775808", datasource.Int8: "-128", datasource.Uint8: "+255"} {
		if _, err := parseValue(&datasource.Signal{Name: "X", Type: typ}, v); err != nil {
			t.Errorf("%s %s: %v", typ, v, err)
		}
	}
}

func TestFormatValueBounded(t *testing.T) {
	sig := &datasource.Signal{Name: "A", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 10000}
	b, err := parseValue(sig, "2.5")
	if err != nil {
		t.Fatal(err)
	}
	if got := formatValue(sig, b, 64); got != "2.5 (all 10000 elements)" {
		t.Errorf("uniform: %q", got)
	}
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(1))
	got := formatValue(sig, b, 64)
	if len(got) > 64+32 || !strings.HasPrefix(got, "2.5,1,2.5,") || !strings.HasSuffix(got, "…(10000 elements)") {
		t.Errorf("mixed: %d bytes %q", len(got), got)
	}
}

// A value outside the quantisation range is applied, and the note says the
// wire clamps it and what the client receives.
func TestWireClamp(t *testing.T) {
	sig := &datasource.Signal{Name: "V", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 3,
		RangeMin: -10, RangeMax: 10, QuantizedType: quant.Int16}
	for _, tc := range []struct {
		value   string
		clamped int
		note    string
	}{
		{"5", 0, ""},
		{"50", 3, "the value is outside the int16 quantisation range [-10, 10] and clamped on the wire: 50 arrives as 10"},
		{"1,-50,2", 1, "element 1 is outside the int16 quantisation range [-10, 10] and clamped on the wire: -50 arrives as -10"},
		{"11,nan,2", 2, "2 of 3 elements are outside the int16 quantisation range [-10, 10] and clamped on the wire: 11 arrives as 10"},
	} {
		b, err := parseValue(sig, tc.value)
		if err != nil {
			t.Fatal(err)
		}
		n, note := wireClamp(sig, b)
		if n != tc.clamped || note != tc.note {
			t.Errorf("%s: %d %q, want %d %q", tc.value, n, note, tc.clamped, tc.note)
		}
	}
	raw := *sig
	raw.QuantizedType = quant.None
	b, _ := parseValue(&raw, "50")
	if n, note := wireClamp(&raw, b); n != 0 || note != "" {
		t.Errorf("unquantised: %d %q", n, note)
	}
}

func TestPlainDecimal(t *testing.T) {
	for s, want := range map[string]bool{"10": true, "010": true, "0.5": true, "50ms": true, "on": true, "-3": true,
		"0x10": false, "0X10": false, "-0b1": false, "0o7": false, "1_000": false, "0x1p4": false} {
		if plainDecimal(s) != want {
			t.Errorf("plainDecimal(%q) = %v", s, !want)
		}
	}
}

// TestForceText: a char8 signal is forced with its text, NUL-padded, and
// /status shows the text back, escaped.
func TestForceText(t *testing.T) {
	sig := &datasource.Signal{Name: "Label", Type: datasource.Char8, NumberOfDimensions: 1, NumberOfElements: 8}
	b, err := parseValue(sig, "run, 7")
	if err != nil || string(b) != "run, 7\x00\x00" {
		t.Fatalf("parseValue = %q, %v", b, err)
	}
	if got := formatValue(sig, b, 100); got != "run, 7" {
		t.Errorf("formatValue = %q", got)
	}
	if got := formatValue(sig, []byte("a\tb\\\x00\x00\x00\x00\x00"), 100); got != `a\x09b\\` {
		t.Errorf("formatValue escapes: %q", got)
	}
	for _, bad := range []struct{ text, want string }{
		{"12345678", "8 bytes does not fit a char8[8] signal with the NUL that ends it (at most 7 bytes)"},
		{"a\x00b", "NUL"},
	} {
		if _, err := parseValue(sig, bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseValue(%q) = %v, want %q", bad.text, err, bad.want)
		}
	}
}
