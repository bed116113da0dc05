//go:build !portable

package cpu

import "golang.org/x/sys/unix"

// threadID returns the calling OS thread's id (gettid), the TID that
// names it under /proc/self/task. It is a system call.
func threadID() int { return unix.Gettid() }
