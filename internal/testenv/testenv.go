// Package testenv tells tests about the build they run in and holds the small helpers tests of several packages share (test-only: only _test.go files import it).
package testenv

import (
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// SkipIfRace skips tb when the race detector is on: it allocates on its own
// and slows timing-sensitive code, so allocation counts are meaningless there.
func SkipIfRace(tb testing.TB) {
	tb.Helper()
	if RaceEnabled {
		tb.Skip("skipped under -race: the race detector allocates")
	}
}

// Loopback returns a UDP socket bound to a free port of 127.0.0.1, closed
// when tb ends.
func Loopback(tb testing.TB) *net.UDPConn {
	tb.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// exampleHTTP matches the HTTP address of an example configuration.
var exampleHTTP = regexp.MustCompile(`(?m)^HTTPAddress = "[^"]*"`)

// FreeHTTP returns the text of an example configuration with its
// HTTPAddress on a free loopback port (or replaced by with, when given),
// so a test can run beside a streamerd on the examples' ports.
func FreeHTTP(text string, with ...string) string {
	repl := `HTTPAddress = "127.0.0.1:0"`
	if len(with) > 0 {
		repl = with[0]
	}
	return exampleHTTP.ReplaceAllLiteralString(text, repl)
}

// Help runs a command's -h through run, its main with the arguments and
// outputs passed in, and checks the result as CheckHelp does.
func Help(tb testing.TB, name string, run func(args []string, stdout, stderr io.Writer) int, flags ...string) {
	tb.Helper()
	var stderr strings.Builder
	code := run([]string{"-h"}, io.Discard, &stderr)
	CheckHelp(tb, name, code, stderr.String(), flags...)
}

// CheckHelp fails tb unless a command's -h exited 0 and printed, in out,
// its usage line, every flag named in flags and examples, as cli.Usage
// writes them.
func CheckHelp(tb testing.TB, name string, code int, out string, flags ...string) {
	tb.Helper()
	if code != 0 {
		tb.Errorf("%s -h: exit %d, want 0", name, code)
	}
	for _, w := range []string{"usage: " + name + " ", "\nflags:\n", "\nexamples:\n  " + name + " "} {
		if !strings.Contains(out, w) {
			tb.Errorf("%s -h lacks %q:\n%s", name, w, out)
		}
	}
	for _, f := range flags {
		if !regexp.MustCompile(`\n  -` + regexp.QuoteMeta(f) + `[ \t\n]`).MatchString(out) {
			tb.Errorf("%s -h does not list -%s:\n%s", name, f, out)
		}
	}
}

// FreeUDPPort returns a UDP port of 127.0.0.1 that was free a moment ago,
// for a configuration or a process that binds it itself.
func FreeUDPPort(tb testing.TB) int {
	tb.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// FreeUDPAddr is FreeUDPPort as an address, "127.0.0.1:port".
func FreeUDPAddr(tb testing.TB) string {
	tb.Helper()
	return "127.0.0.1:" + strconv.Itoa(FreeUDPPort(tb))
}
