//go:build !linux || portable

package cpu

import "time"

// base is the origin of the portable clocks below.
var base = time.Now()

// monotonicRawNanos is the Go runtime's monotonic clock counted from
// process start: other systems have no CLOCK_MONOTONIC_RAW here.
func monotonicRawNanos() uint64 { return uint64(time.Since(base)) }

// monotonicNanos is the Go runtime's monotonic clock counted from process
// start.
func monotonicNanos() int64 { return int64(time.Since(base)) }

// sleepUntil sleeps with time.Sleep: a relative sleep through the Go
// scheduler. It never fails.
func sleepUntil(abs int64) error {
	time.Sleep(time.Duration(abs - monotonicNanos()))
	return nil
}
