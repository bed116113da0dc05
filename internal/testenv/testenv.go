// Package testenv tells tests about the build they run in.
package testenv

import "testing"

// SkipIfRace skips tb when the race detector is on: it allocates on its own
// and slows timing-sensitive code, so allocation counts are meaningless there.
func SkipIfRace(tb testing.TB) {
	tb.Helper()
	if RaceEnabled {
		tb.Skip("skipped under -race: the race detector allocates")
	}
}
