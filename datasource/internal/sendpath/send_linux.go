//go:build !portable

package sendpath

import (
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	maxGSOSegments = 64    // UDP_MAX_SEGMENTS in the kernel
	maxGSOBytes    = 65507 // one GSO super-datagram is bounded like a datagram
	maxMmsg        = 1024  // UIO_MAXIOV
)

// kernel holds what GSO and sendmmsg hand to the kernel, allocated once.
type kernel struct {
	rc syscall.RawConn

	// sockaddr of the destination, in the socket's family; saLen 0: none.
	sa    [unix.SizeofSockaddrInet6]byte
	saLen uint32

	// GSO: one msghdr, one iovec, one control message.
	msg  unix.Msghdr
	iov  unix.Iovec
	ctrl []byte // aligned control buffer holding a UDP_SEGMENT cmsg

	// sendmmsg: one header and one iovec per datagram.
	mmsg []unix.Mmsghdr
	iovs []unix.Iovec

	// arguments and results of the current RawConn.Write callback
	nmsg    int
	callErr error
	writeFn func(fd uintptr) bool
}

func (k *kernel) init(conn *net.UDPConn) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	k.rc = rc
	k.ctrl = make([]byte, unix.CmsgSpace(2))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&k.ctrl[0]))
	h.Level = unix.SOL_UDP
	h.Type = unix.UDP_SEGMENT
	h.SetLen(unix.CmsgLen(2))
	k.mmsg = make([]unix.Mmsghdr, maxMmsg)
	k.iovs = make([]unix.Iovec, maxMmsg)
	k.writeFn = k.write
	return nil
}

// probe picks the best method this kernel offers on this socket.
func (k *kernel) probe() SendMethod {
	switch {
	case k.gsoSupported():
		return MethodGSO
	case k.mmsgSupported():
		return MethodSendmmsg
	}
	return MethodSendto
}

func (k *kernel) gsoSupported() bool {
	supported := false
	_ = k.rc.Control(func(fd uintptr) {
		_, err := unix.GetsockoptInt(int(fd), unix.SOL_UDP, unix.UDP_SEGMENT)
		supported = err == nil
	})
	return supported
}

// mmsgSupported reports whether sendmmsg exists: with zero messages it
// succeeds where it does.
func (k *kernel) mmsgSupported() bool {
	var errno syscall.Errno
	_ = k.rc.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&k.mmsg[0])), 0, 0, 0, 0)
	})
	return errno == 0
}

// setDestination lays dst out as a sockaddr of the socket's family: IPv6
// on an IPv6 socket (IPv4 as IPv4-mapped), IPv4 otherwise.
func (k *kernel) setDestination(dst netip.AddrPort, ipv6Socket bool) {
	k.saLen = 0
	if !dst.IsValid() {
		return
	}
	ip := dst.Addr()
	if ipv6Socket && ip.Is4() || ip.Is6() && !ip.Is4In6() {
		sa := (*unix.RawSockaddrInet6)(unsafe.Pointer(&k.sa[0]))
		*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ip.As16()}
		putPort(&sa.Port, dst.Port())
		k.saLen = unix.SizeofSockaddrInet6
		return
	}
	sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&k.sa[0]))
	*sa = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip.Unmap().As4()}
	putPort(&sa.Port, dst.Port())
	k.saLen = unix.SizeofSockaddrInet4
}

// putPort stores port in network byte order.
func putPort(p *uint16, port uint16) {
	b := (*[2]byte)(unsafe.Pointer(p))
	b[0] = byte(port >> 8)
	b[1] = byte(port)
}

// sendGSO sends with sendmsg and UDP_SEGMENT, up to maxGSOSegments
// datagrams a call. If the very first call fails the way a device that
// cannot segment fails, it sends with sendmmsg instead and reports
// fellBack, so the caller switches for good.
func (k *kernel) sendGSO(buf []byte, segment, total int) (sent int, fellBack bool, err error) {
	perCall := min(maxGSOSegments, maxGSOBytes/segment)
	if perCall < 2 {
		sent, err = k.sendMmsg(buf, segment, total)
		return sent, false, err
	}
	*(*uint16)(unsafe.Pointer(&k.ctrl[unix.CmsgLen(0)])) = uint16(segment)
	for sent < total {
		n := min(perCall, total-sent)
		start := sent * segment
		end := min(start+n*segment, len(buf))
		k.iov.Base = &buf[start]
		k.iov.SetLen(end - start)
		k.msg = unix.Msghdr{Name: &k.sa[0], Namelen: k.saLen, Iov: &k.iov}
		k.msg.SetIovlen(1)
		if n > 1 {
			k.msg.Control = &k.ctrl[0]
			k.msg.SetControllen(len(k.ctrl))
		}
		k.nmsg = -1 // sendmsg
		if err := k.call(); err != nil {
			if sent == 0 && (err == unix.EINVAL || err == unix.EMSGSIZE || err == unix.EIO) {
				sent, err = k.sendMmsg(buf, segment, total)
				return sent, true, err
			}
			return sent, false, err
		}
		sent += n
	}
	return sent, false, nil
}

func (k *kernel) sendMmsg(buf []byte, segment, total int) (int, error) {
	sent := 0
	for sent < total {
		n := min(maxMmsg, total-sent)
		for i := 0; i < n; i++ {
			start := (sent + i) * segment
			end := min(start+segment, len(buf))
			k.iovs[i].Base = &buf[start]
			k.iovs[i].SetLen(end - start)
			m := &k.mmsg[i]
			m.Hdr = unix.Msghdr{Name: &k.sa[0], Namelen: k.saLen, Iov: &k.iovs[i]}
			m.Hdr.SetIovlen(1)
			m.Len = 0
		}
		k.nmsg = n
		if err := k.call(); err != nil {
			return sent, err
		}
		if k.nmsg <= 0 {
			return sent, syscall.EIO
		}
		sent += k.nmsg // the kernel may take fewer than asked
	}
	return sent, nil
}

// call runs the prepared sendmsg (nmsg < 0) or sendmmsg (nmsg messages)
// through the runtime poller, waiting for writability on EAGAIN.
func (k *kernel) call() error {
	k.callErr = nil
	if err := k.rc.Write(k.writeFn); err != nil {
		return err
	}
	return k.callErr
}

// write makes the system call, again after a signal interrupted it; it
// returns false on EAGAIN so that the poller waits for writability.
func (k *kernel) write(fd uintptr) bool {
	for {
		var r uintptr
		var errno syscall.Errno
		if k.nmsg < 0 {
			r, _, errno = unix.Syscall(unix.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&k.msg)), 0)
		} else {
			r, _, errno = unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&k.mmsg[0])), uintptr(k.nmsg), 0, 0, 0)
		}
		switch errno {
		case 0:
			if k.nmsg >= 0 {
				k.nmsg = int(r)
			}
			return true
		case unix.EAGAIN:
			return false
		case unix.EINTR:
			continue
		}
		k.callErr = errno
		return true
	}
}
