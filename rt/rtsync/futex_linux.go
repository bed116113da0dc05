//go:build !portable

package rtsync

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexWait sleeps while *addr == val, for at most timeout (negative:
// without limit). It is a blocking call (unix.Syscall6), so the Go
// scheduler may hand the thread's P to other goroutines meanwhile.
// Spurious returns are possible; callers re-check their condition.
func futexWait(addr *atomic.Uint32, val uint32, timeout time.Duration) {
	var ts unix.Timespec
	tsp := (*unix.Timespec)(nil)
	if timeout >= 0 {
		ts = unix.NsecToTimespec(int64(timeout))
		tsp = &ts
	}
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate,
		uintptr(val), uintptr(unsafe.Pointer(tsp)), 0, 0)
}

// futexWakeAll wakes every thread sleeping on addr. FUTEX_WAKE never
// blocks, so it is a raw system call that skips the scheduler hand-off.
func futexWakeAll(addr *atomic.Uint32) {
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate,
		uintptr(1<<31-1), 0, 0, 0)
}

// pollSleep sleeps d with a raw nanosleep, without giving up the thread's P.
func pollSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
