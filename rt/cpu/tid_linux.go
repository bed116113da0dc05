//go:build !portable

package cpu

import "golang.org/x/sys/unix"

// ThreadID returns the calling OS thread's id (gettid), the TID that names
// it under /proc/self/task. It is a system call: call it once, from a
// thread locked with runtime.LockOSThread, before a loop.
func ThreadID() int { return unix.Gettid() }
