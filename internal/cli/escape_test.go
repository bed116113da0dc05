package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Ch1", "Ch1"},
		{"µs", "µs"},
		{"a b", "a b"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"two\nlines\r\ttab", `two\nlines\r\ttab`},
		{"del\x7f", `del\x7f`},
		{"csi\u009b2J", `csi\u009b2J`},
		{"rlo\u202eevil", `rlo\u202eevil`},
		{"nbsp\u00a0", `nbsp\u00a0`},
		{`back\slash`, `back\\slash`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`},
		{"tag\U000E0041", `tag\U000e0041`},
		{"\x00", `\x00`},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(AppendEscaped([]byte("x"), c.in)); got != "x"+c.want {
			t.Errorf("AppendEscaped(%q) = %q", c.in, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { sinkS = Escape("plain µs name") }); n != 0 {
		t.Errorf("Escape of a clean name: %v allocations", n)
	}
}

var sinkS string

// validRunes is s with every byte that is not UTF-8 replaced by U+FFFD.
func validRunes(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// TestAppendJSONString: the JSON text reads back to the same string (bytes
// that are not UTF-8 become U+FFFD, as with encoding/json) and carries no
// control character, nor any character Escape would escape.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "Ch1", `a"b\c`, "\x1b]0;t\x07", "x\u009by", "rlo\u202e", "tag\U000E0041", "bad\xffx", "µs\n"} {
		b := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q: %s: %v", s, b, err)
		}
		if want := validRunes(s); back != want {
			t.Errorf("%q: %s reads back as %q", s, b, back)
		}
		inner := string(b[1 : len(b)-1])
		if Escape(strings.ReplaceAll(inner, `\`, "")) != strings.ReplaceAll(inner, `\`, "") || !utf8.ValidString(inner) {
			t.Errorf("%q: %s keeps a character a terminal acts on", s, b)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"Ch1", "\x1b[2J", "a\\b", "\xff", "\xca\xca", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		for _, r := range e {
			if r != '\\' && needsEscape(r) || r == utf8.RuneError {
				t.Fatalf("Escape(%q) = %q keeps %U", s, e, r)
			}
		}
		var back string
		if err := json.Unmarshal(AppendJSONString(nil, s), &back); err != nil || back != validRunes(s) {
			t.Fatalf("AppendJSONString(%q) reads back as %q, %v", s, back, err)
		}
	})
}
