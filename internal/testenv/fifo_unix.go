//go:build unix

package testenv

import (
	"syscall"
	"testing"
)

// Mkfifo makes a named pipe at path and returns path: a file that blocks
// a reader forever, for the tests of what refuses to read it.
func Mkfifo(tb testing.TB, path string) string {
	tb.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
