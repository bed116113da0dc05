package cli

import (
	"testing"
	"unicode/utf8"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestAppendText(t *testing.T) {
	for _, tc := range []struct {
		field, want string
	}{
		{"", ""},
		{"\x00\x00\x00", ""},
		{"shot 42\x00\x00", "shot 42"},
		{"full8chr", "full8chr"},
		{"ab\x00garbage", "ab"},
		{`a\b`, `a\\b`},
		{"tab\there\n", `tab\x09here\x0a`},
		{"\x7f\x80\xff", `\x7f\x80\xff`},
		{"é ✓", "é ✓"},
		{"\xe2\x9c", `\xe2\x9c`},   // a cut UTF-8 sequence
		{"\u200b", `\xe2\x80\x8b`}, // not printable
		{`"q"`, `"q"`},
	} {
		if got := string(AppendText([]byte("> "), []byte(tc.field))); got != "> "+tc.want {
			t.Errorf("AppendText(%q) = %q, want %q", tc.field, got, "> "+tc.want)
		}
	}
}

func TestAppendTextNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	buf := make([]byte, 0, 64)
	field := []byte("é\\x\x01\x00rest")
	if n := testing.AllocsPerRun(1000, func() { buf = AppendText(buf[:0], field) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func FuzzAppendText(f *testing.F) {
	f.Add([]byte("shot 42\x00\x00"))
	f.Add([]byte("é\\\x01\xff"))
	f.Fuzz(func(t *testing.T, field []byte) {
		s := AppendText(nil, field)
		for _, c := range s {
			if c < 0x20 || c == 0x7f {
				t.Fatalf("%q: control byte in %q", field, s)
			}
		}
		if !utf8.Valid(s) {
			t.Fatalf("%q: invalid UTF-8 %q", field, s)
		}
	})
}
