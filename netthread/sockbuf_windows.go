package netthread

import (
	"syscall"
	"unsafe"
)

// setBuffers sets the buffers of fd with the plain options and reads them
// back.
func setBuffers(fd uintptr, b *Buffers) error {
	h := syscall.Handle(fd)
	set := func(opt, want int) error {
		if want <= 0 {
			return nil
		}
		return syscall.SetsockoptInt(h, syscall.SOL_SOCKET, opt, want)
	}
	get := func(opt int) (int, error) {
		var v int32
		n := int32(unsafe.Sizeof(v))
		err := syscall.Getsockopt(h, syscall.SOL_SOCKET, int32(opt), (*byte)(unsafe.Pointer(&v)), &n)
		return int(v), err
	}
	if err := set(syscall.SO_SNDBUF, b.sendWant); err != nil {
		return err
	}
	if err := set(syscall.SO_RCVBUF, b.recvWant); err != nil {
		return err
	}
	var err error
	if b.SendGot, err = get(syscall.SO_SNDBUF); err != nil {
		return err
	}
	b.RecvGot, err = get(syscall.SO_RCVBUF)
	return err
}
