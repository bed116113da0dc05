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
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.SetOutput(&out)
	SetUsage(fs, Usage{Synopsis: []string{"-a A", "-b"}, Summary: "Does things.", Examples: []string{"tool -a 1  # one"}})
	fs.String("a", "x", "the `A`")
	fs.Bool("b", false, "a switch")
	if err := fs.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, w := range []string{"usage: tool -a A\n       tool -b\n", "\nDoes things.\n", "\nflags:\n", "  -a A\n", "  -b\t", "\nexamples:\n  tool -a 1  # one\n"} {
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
