//go:build !linux || portable

package cpu

import "time"

// base is the origin of the portable clocks below.
var base = time.Now()

// MonotonicRawNanos returns a monotonic clock in nanoseconds. Other systems
// get the Go runtime's monotonic clock counted from process start, not the
// kernel's CLOCK_MONOTONIC_RAW.
func MonotonicRawNanos() uint64 { return uint64(time.Since(base)) }

// MonotonicNanos returns the clock SleepUntil sleeps on: here the Go
// runtime's monotonic clock counted from process start.
func MonotonicNanos() int64 { return int64(time.Since(base)) }

// SleepUntil sleeps until MonotonicNanos reaches abs, with time.Sleep
// (a relative sleep through the Go scheduler; Linux sleeps on an absolute
// deadline). It never fails.
func SleepUntil(abs int64) error {
	time.Sleep(time.Duration(abs - MonotonicNanos()))
	return nil
}
