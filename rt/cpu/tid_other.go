//go:build !linux || portable

package cpu

// threadID returns 0: thread ids that /proc names are Linux's.
func threadID() int { return 0 }

// onMainThread reports false: no thread ids here.
func onMainThread() bool { return false }
