//go:build unix

package testenv

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// Pause stops process p (SIGSTOP) for d, then lets it go on (SIGCONT): a
// process descheduled as a whole.
func Pause(tb testing.TB, p *os.Process, d time.Duration) {
	tb.Helper()
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		tb.Fatal(err)
	}
	time.Sleep(d)
	if err := p.Signal(syscall.SIGCONT); err != nil {
		tb.Fatal(err)
	}
}
