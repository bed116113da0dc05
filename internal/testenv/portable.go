package testenv

import "testing"

// SkipIfPortable skips tb on the portable fallbacks, where parking a
// waiter and sleeping go through the Go scheduler and allocate.
func SkipIfPortable(tb testing.TB) {
	tb.Helper()
	if Portable {
		tb.Skip("skipped with the portable fallbacks: parking allocates")
	}
}
