//go:build !unix

package testenv

import (
	"os"
	"testing"
	"time"
)

// Pause skips tb: stopping a process and letting it go on (SIGSTOP,
// SIGCONT) is Unix's.
func Pause(tb testing.TB, p *os.Process, d time.Duration) {
	tb.Helper()
	tb.Skip("skipped: no SIGSTOP on this system")
}
