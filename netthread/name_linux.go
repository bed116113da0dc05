//go:build !portable

package netthread

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// nameThread names the calling OS thread (prctl PR_SET_NAME) after its
// first 15 bytes of name, so `top -H`, `ps -L` and /proc/<pid>/task/<tid>/comm
// show which producer's network thread it is. A failure changes nothing
// else and is ignored.
func nameThread(name string) {
	var b [16]byte // the kernel's TASK_COMM_LEN, NUL included
	copy(b[:15], name)
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
}
