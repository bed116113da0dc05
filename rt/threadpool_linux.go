//go:build !portable

package rt

import (
	"time"

	"golang.org/x/sys/unix"
)

// sleepInSyscall blocks the calling goroutine in a nanosleep system call,
// which makes the runtime hand its P to another OS thread.
func sleepInSyscall(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	unix.Nanosleep(&ts, nil)
}
