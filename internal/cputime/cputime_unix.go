//go:build unix

// Package cputime reads the CPU time the process has used, for the record command's summary and the benchmarks that report CPU per operation.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user and system CPU time the process has used so
// far (getrusage RUSAGE_SELF); 0 when it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
