package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestSourceCheck: one source, FlatFlags with -flat only, -iface with
// -group only, a positive -timeout; each refusal names its rule.
func TestSourceCheck(t *testing.T) {
	for _, c := range []struct {
		args []string
		or   string
		want string // "" for no error
	}{
		{[]string{"-udps", "127.0.0.1:1"}, "", ""},
		{[]string{"-flat", ":1", "-signals", "A:uint8", "-group", "239.0.0.1", "-iface", "lo", "-endian", "big"}, "", ""},
		{nil, "", "give one source: -udps HOST:PORT, -flat HOST:PORT or -rd100s HOST:PORT"},
		{nil, "-repair FILE", "give one source: -udps HOST:PORT, -flat HOST:PORT or -rd100s HOST:PORT (or -repair FILE)"},
		{[]string{"-udps", "a:1", "-rd100s", "b:2"}, "", "give one source"},
		{[]string{"-rd100s", ":1", "-signals", "A:uint8"}, "", "-signals and -group go with -flat"},
		{[]string{"-rd100s", ":1", "-group", "239.0.0.1"}, "", "-signals and -group go with -flat"},
		{[]string{"-flat", ":1", "-iface", "lo"}, "", "-iface goes with -group"},
		{[]string{"-udps", "a:1", "-timeout", "0s"}, "", "-timeout must be positive"},
	} {
		var s Source
		fs := NewFlagSet("tool", &bytes.Buffer{}, Usage{})
		s.Register(fs)
		if err := Parse(fs, c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		err := s.Check(c.or)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%v: error %v, want %s", c.args, err, c.want)
		}
	}
}
