//go:build !portable

package cpu

import "golang.org/x/sys/unix"

// threadID returns gettid.
func threadID() int { return unix.Gettid() }
