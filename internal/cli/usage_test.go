package cli

import (
	"bytes"
	"errors"
	"flag"
	"runtime"
	"strings"
	"testing"
)

func TestUsageListsEveryFlagAndExamples(t *testing.T) {
	var out bytes.Buffer
	fs := NewFlagSet("tool", &out, Usage{Synopsis: []string{"-a A", "-b"}, Summary: "Does things.", Examples: []string{"tool -a 1  # one"}, Notes: "\nNotes.\n"})
	fs.String("a", "x", "the `A`")
	fs.Bool("b", false, "a switch")
	if err := fs.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, w := range []string{"usage: tool -a A\n       tool -b\n", "\nDoes things.\n", "\nflags:\n", "  -a A\n", "  -b\t", "\nexamples:\n  tool -a 1  # one\n\nNotes.\n"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("usage lacks %q:\n%s", w, out.String())
		}
	}
	if fs.Output() != &out {
		t.Error("Write changed the flag set's output")
	}
}

func TestVersion(t *testing.T) {
	v := Version("tool")
	if !strings.HasPrefix(v, "tool ") || !strings.HasSuffix(v, " "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("Version: %q", v)
	}
}

func TestParseError(t *testing.T) {
	var stderr bytes.Buffer
	if code := ParseError("tool", &stderr, flag.ErrHelp); code != ExitOK || stderr.Len() != 0 {
		t.Errorf("ErrHelp: exit %d, stderr %q", code, stderr.String())
	}
	if code := ParseError("tool", &stderr, errors.New("bad")); code != ExitUsage || stderr.String() != "tool: bad\n" {
		t.Errorf("bad: exit %d, stderr %q", code, stderr.String())
	}
}

// TestParseSuggestsTheClosestFlag: a misspelt flag is named with the
// closest defined one, in the line the flag set prints and in the error;
// a flag far from every defined one gets no suggestion.
func TestParseSuggestsTheClosestFlag(t *testing.T) {
	newFS := func(out *bytes.Buffer) *flag.FlagSet {
		fs := NewFlagSet("tool", out, Usage{Synopsis: []string{"-config file"}})
		fs.String("config", "", "the `file`")
		fs.Bool("check", false, "check only")
		fs.String("log-level", "", "level")
		return fs
	}
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"-confg", "x"}, "flag provided but not defined: -confg (did you mean -config?)"},
		{[]string{"--cnofig=x"}, "flag provided but not defined: -cnofig (did you mean -config?)"},
		{[]string{"-chekc"}, "flag provided but not defined: -chekc (did you mean -check?)"},
		{[]string{"-log-levle", "debug"}, "flag provided but not defined: -log-levle (did you mean -log-level?)"},
		{[]string{"-verbose"}, "flag provided but not defined: -verbose"},
		{[]string{"-config", "x", "-check"}, ""},
	} {
		var out bytes.Buffer
		fs := newFS(&out)
		err := Parse(fs, c.args)
		if c.want == "" {
			if err != nil || out.Len() != 0 {
				t.Errorf("%v: %v\n%s", c.args, err, out.String())
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %s", c.args, err, c.want)
		}
		if !strings.HasPrefix(out.String(), c.want+"\nusage: tool -config file\n") {
			t.Errorf("%v: printed\n%s", c.args, out.String())
		}
		if fs.Output() != &out {
			t.Errorf("%v: Parse changed the flag set's output", c.args)
		}
		var stderr bytes.Buffer
		if code := ParseError("tool", &stderr, err); code != ExitUsage || stderr.String() != "tool: "+c.want+"\n" {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr.String())
		}
	}
	var out bytes.Buffer
	if err := Parse(newFS(&out), []string{"-h"}); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "-config file") {
		t.Errorf("-h: %v\n%s", err, out.String())
	}
}
