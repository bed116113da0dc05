// Package forensics explains late and skipped cycles from what Linux and the Go runtime already count: hypervisor steal, run-queue waits, page faults, Go pauses, RT throttling.
//
// Usage:
//  1. New(Config{Metrics: ms, Log: log}); WatchThread for each cycles.Thread,
//     WatchProducer for each producer that stamps its skipped cycles.
//  2. Start after the threads and producers started; Stop after they
//     stopped.
//  3. Read Status (for /status), Counts and Events from any goroutine.
//
// The RT thread and Synchronise only stamp the event in a preallocated
// ring (cycles.Thread.DrainLateCycles, a producer's DrainSkips). The monitor
// samples every Interval, on its own goroutine: steal per CPU from
// /proc/stat, each watched thread's run-queue wait and run time
// (/proc/self/task/TID/schedstat), involuntary switches (status) and page
// faults and last CPU (stat), read with pread on files kept open, and
// the Go runtime's stop-the-world pauses (runtime/metrics). An event is
// explained from the two samples that enclose it: each cause's time is
// capped at the event's span, and the largest names it if the causes
// together account for at least half of it. docs/timings.md lists the
// causes and what a user does about each.
//
// Off Linux only the Go pauses are known; everything else is Unknown.
package forensics
