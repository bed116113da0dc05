//go:build !portable

package cpu

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// monotonicRawNanos reads CLOCK_MONOTONIC_RAW with a raw clock_gettime
// system call: the Go runtime's vDSO path only serves CLOCK_MONOTONIC.
func monotonicRawNanos() uint64 {
	var ts unix.Timespec
	unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC_RAW, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// monotonicNanos reads CLOCK_MONOTONIC with a raw clock_gettime system
// call.
func monotonicNanos() int64 {
	var ts unix.Timespec
	unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Sec*1e9 + ts.Nsec
}

// sleepUntil sleeps with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME),
// restarting on EINTR.
func sleepUntil(abs int64) error {
	ts := unix.NsecToTimespec(abs)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if err != unix.EINTR {
			return err
		}
	}
}
