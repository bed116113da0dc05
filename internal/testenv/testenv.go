// Package testenv tells tests about the build they run in and holds the small helpers tests of several packages share.
package testenv

import (
	"net"
	"regexp"
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
