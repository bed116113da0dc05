// Package cpu pins the calling OS thread to CPUs and gives it real-time scheduling, memory locking and a monotonic clock to sleep on.
//
// Usage:
//  1. StartThread runs a function on a new goroutine locked to its own OS
//     thread, pinned to a Mask (the affinity is read back and must equal
//     the Mask) and optionally SCHED_FIFO. When the function returns the Go
//     runtime destroys the thread, so its affinity and priority never leak
//     to other goroutines. PinCurrentThread pins a thread locked by hand
//     with runtime.LockOSThread.
//  2. Once per process, optionally, HoldWakeLatency.
//  3. Pace a loop with MonotonicNanos and SleepUntil (absolute deadlines;
//     under normal scheduling, SetTimerSlack(1) first); stamp with
//     MonotonicRawNanos.
//
// All functions act on the calling thread only (pid 0 in the syscalls).
// On systems other than Linux only the zero Mask and priority 0 work (the
// rest returns ErrNotSupported) and the clocks are the Go runtime's. The
// portable build tag selects that code on Linux, to test it there.
package cpu
