//go:build !portable

package rt

import "golang.org/x/sys/unix"

// currentThreadID returns the calling OS thread's id (gettid).
func currentThreadID() int { return unix.Gettid() }
