//go:build (!linux || portable) && !windows

package netthread

import (
	"runtime"
	"syscall"
)

const isLinux = runtime.GOOS == "linux"

// setBuffers sets the buffers of fd with the plain options and reads them
// back.
func setBuffers(sysfd uintptr, b *Buffers) error {
	fd := int(sysfd)
	if b.sendWant > 0 {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, b.sendWant); err != nil {
			return err
		}
	}
	if b.recvWant > 0 {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, b.recvWant); err != nil {
			return err
		}
	}
	var err error
	if b.SendGot, err = syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF); err != nil {
		return err
	}
	b.RecvGot, err = syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF)
	if isLinux { // the portable build on Linux: the kernel reports double
		b.SendGot, b.RecvGot = b.SendGot/2, b.RecvGot/2
	}
	return err
}
