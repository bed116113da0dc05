//go:build !portable

package cpu

import "golang.org/x/sys/unix"

// threadID returns the calling OS thread's id (gettid), the TID that
// names it under /proc/self/task. It is a system call.
func threadID() int { return unix.Gettid() }

// onMainThread reports whether the calling goroutine runs on the process's
// main thread (its thread id is the process id).
func onMainThread() bool { return unix.Gettid() == unix.Getpid() }
