//go:build !portable

package sendpath

import (
	"encoding/binary"
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrQueue reads the ICMP errors the kernel queued on a UDP socket
// (IP_RECVERR). Its buffers are allocated once: reading allocates nothing.
// One goroutine at a time may use an ErrQueue; a socket may have several.
type ErrQueue struct {
	rc     syscall.RawConn
	msg    unix.Msghdr
	name   [unix.SizeofSockaddrInet6]byte
	oob    [256]byte
	readFn func(fd uintptr)
	fn     func(ICMPError)
	n      int
}

// EnableICMPErrors asks the kernel to queue ICMP errors for conn's sends
// (IP_RECVERR, and IPV6_RECVERR on an IPv6 socket), also for an
// unconnected socket, and returns a reader of that queue. A send after an
// error then fails once with the error (ECONNREFUSED for port
// unreachable) and the error waits in the queue until read.
func EnableICMPErrors(conn *net.UDPConn) (*ErrQueue, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var v4, v6 error
	if err := rc.Control(func(fd uintptr) {
		v4 = unix.SetsockoptInt(int(fd), unix.SOL_IP, unix.IP_RECVERR, 1)
		v6 = unix.SetsockoptInt(int(fd), unix.SOL_IPV6, unix.IPV6_RECVERR, 1)
	}); err != nil {
		return nil, err
	}
	if v4 != nil && v6 != nil {
		return nil, v4
	}
	q := &ErrQueue{rc: rc}
	q.readFn = q.read
	return q, nil
}

// Read calls fn for every error queued, oldest first, and returns how
// many there were. It never waits, not even for a goroutine blocked in a
// read of the same socket (it goes through RawConn.Control, not Read).
func (q *ErrQueue) Read(fn func(ICMPError)) int {
	q.fn, q.n = fn, 0
	_ = q.rc.Control(q.readFn)
	q.fn = nil
	return q.n
}

// read drains the queue with recvmsg(MSG_ERRQUEUE | MSG_DONTWAIT).
func (q *ErrQueue) read(fd uintptr) {
	for {
		q.msg = unix.Msghdr{Name: &q.name[0], Namelen: uint32(len(q.name)), Control: &q.oob[0]}
		q.msg.SetControllen(len(q.oob))
		_, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&q.msg)), unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		default: // EAGAIN: empty
			return
		}
		q.n++
		if e, ok := q.parse(); ok && q.fn != nil {
			q.fn(e)
		}
	}
}

// parse reads the destination from the message's name and the error from
// its IP_RECVERR or IPV6_RECVERR control message.
func (q *ErrQueue) parse() (ICMPError, bool) {
	var e ICMPError
	switch binary.NativeEndian.Uint16(q.name[:]) {
	case unix.AF_INET:
		sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&q.name[0]))
		e.Dst = netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:]))
	case unix.AF_INET6:
		sa := (*unix.RawSockaddrInet6)(unsafe.Pointer(&q.name[0]))
		e.Dst = netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:]))
	}
	oob := q.oob[:q.msg.Controllen]
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		if h.Len < unix.SizeofCmsghdr || int(h.Len) > len(oob) {
			return e, false
		}
		data := oob[unix.CmsgLen(0):h.Len]
		if (h.Level == unix.SOL_IP && h.Type == unix.IP_RECVERR || h.Level == unix.SOL_IPV6 && h.Type == unix.IPV6_RECVERR) &&
			len(data) >= int(unsafe.Sizeof(unix.SockExtendedErr{})) {
			ee := (*unix.SockExtendedErr)(unsafe.Pointer(&data[0]))
			e.PortUnreachable = syscall.Errno(ee.Errno) == unix.ECONNREFUSED &&
				(ee.Origin == unix.SO_EE_ORIGIN_ICMP || ee.Origin == unix.SO_EE_ORIGIN_ICMP6)
			return e, e.Dst.IsValid()
		}
		oob = oob[min(unix.CmsgSpace(int(h.Len)-unix.CmsgLen(0)), len(oob)):]
	}
	return e, false
}
