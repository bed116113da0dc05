//go:build !linux

package testenv

import "time"

// ThreadCPU reports no thread: threads are found by name on Linux only.
func ThreadCPU(name string) (time.Duration, int, bool) { return 0, 0, false }

// ProcessCPU reports nothing off Linux.
func ProcessCPU() (time.Duration, bool) { return 0, false }
