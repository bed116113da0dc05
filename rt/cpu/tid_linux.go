//go:build !portable

package cpu

import "golang.org/x/sys/unix"

// ThreadID returns the calling OS thread's id (gettid), the TID that
// names it under /proc/self/task. It is a system call.
func ThreadID() int { return unix.Gettid() }
