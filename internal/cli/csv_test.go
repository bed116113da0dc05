package cli

import "testing"

func TestAppendCSVField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Ia", "Ia"},
		{"a,b", `"a,b"`},
		{`say "hi"`, `"say ""hi"""`},
		{"line\nbreak", `line\nbreak`},
		{"\x1b[2J", `\x1b[2J`},
	} {
		if got := string(AppendCSVField([]byte("x;"), c.in)); got != "x;"+c.want {
			t.Errorf("AppendCSVField(%q) = %s, want x;%s", c.in, got, c.want)
		}
	}
}
