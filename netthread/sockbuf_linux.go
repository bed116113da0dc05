//go:build !portable

package netthread

import "golang.org/x/sys/unix"

// setBuffers sets and reads back the buffers of fd. Linux reports twice
// the size set (see Buffers); Got is halved back to compare with Want.
func setBuffers(sysfd uintptr, b *Buffers) error {
	fd := int(sysfd)
	b.forced = true
	set := func(want, force, plain int) error {
		if want <= 0 {
			return nil
		}
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, force, want) == nil {
			return nil
		}
		b.forced = false
		return unix.SetsockoptInt(fd, unix.SOL_SOCKET, plain, want)
	}
	if err := set(b.sendWant, unix.SO_SNDBUFFORCE, unix.SO_SNDBUF); err != nil {
		return err
	}
	if err := set(b.recvWant, unix.SO_RCVBUFFORCE, unix.SO_RCVBUF); err != nil {
		return err
	}
	snd, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF)
	if err != nil {
		return err
	}
	rcv, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		return err
	}
	b.SendGot, b.RecvGot = snd/2, rcv/2
	if b.sendWant <= 0 && b.recvWant <= 0 {
		b.forced = false
	}
	return nil
}
