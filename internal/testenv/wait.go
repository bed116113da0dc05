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

// Receive returns the next value on ch, and fails tb naming what it waited
// for when none comes within the given time.
func Receive[T any](tb testing.TB, ch <-chan T, within time.Duration, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(within):
		tb.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
