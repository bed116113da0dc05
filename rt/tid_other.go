//go:build !linux || portable

package rt

// currentThreadID returns 0: no thread ids here.
func currentThreadID() int { return 0 }
