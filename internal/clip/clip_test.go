package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, `"abc"`},
		{"abcd", 3, `"abc"…(4 bytes)`},
		{"\x1b]0;title\x07", 64, `"\x1b]0;title\a"`},
		{"a\nb", 64, `"a\nb"`},
		{"ééé", 3, `"é"…(6 bytes)`}, // é is 2 bytes: cut at a rune boundary
		{"xyz", 0, `""…(3 bytes)`},
		{"", 0, `""`},
		{"\xff\xfe", 1, `"\xff"…(2 bytes)`},
	} {
		if got := Quote(tc.s, tc.max); got != tc.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", tc.s, tc.max, got, tc.want)
		}
	}
}

func TestQuoteBoundsAMegabyte(t *testing.T) {
	s := strings.Repeat("A", 1<<20)
	if got := Quote(s, 64); len(got) > 64+32 || !strings.HasSuffix(got, "…(1048576 bytes)") {
		t.Errorf("Quote of 1 MiB: %d bytes: %.100s", len(got), got)
	}
}

func FuzzPrefix(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 5)
	f.Add("\x9e\x83", 1) // continuation bytes only
	f.Fuzz(func(t *testing.T, s string, max int) {
		p := Prefix(s, max)
		if !strings.HasPrefix(s, p) || (max >= 0 && len(p) > max) {
			t.Fatalf("Prefix(%q, %d) = %q", s, max, p)
		}
		if utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("Prefix(%q, %d) = %q cuts a rune", s, max, p)
		}
		if max >= len(s) && p != s {
			t.Fatalf("Prefix(%q, %d) = %q, want all", s, max, p)
		}
		if max > 0 && len(s) > max && len(p) < max-utf8.UTFMax+1 {
			t.Fatalf("Prefix(%q, %d) = %q: cut too much", s, max, p)
		}
	})
}
