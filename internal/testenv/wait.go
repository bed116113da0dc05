package testenv

import (
	"testing"
	"time"
)

// Eventually polls cond every few milliseconds until it holds, and fails tb
// naming what it waited for when it still does not hold after within. The
// bound only stops a hang: pick it generous, the machine may be loaded.
func Eventually(tb testing.TB, what string, within time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
