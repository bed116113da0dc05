//go:build !linux || portable

package testenv

// Portable reports whether the platform code is the portable fallback
// (systems other than Linux, or the portable build tag): no pinning, no
// SCHED_FIFO, and waiters that park through the Go scheduler.
const Portable = true
