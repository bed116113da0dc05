//go:build unix

package testenv

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// CPUTime returns the CPU time, user and system, the process has used so
// far (getrusage), or 0 where the system does not report it.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
