//go:build !linux || portable

package rt

import "time"

// sleepInSyscall sleeps d. Without Linux's nanosleep this parks the
// goroutine instead of blocking a thread, so WarmThreadPool warms nothing.
func sleepInSyscall(d time.Duration) { time.Sleep(d) }
