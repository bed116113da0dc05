//go:build !linux || portable

package cpu

// ThreadID returns 0: thread ids that /proc names are Linux's.
func ThreadID() int { return 0 }
