// Package udpsend sends the datagrams of one update, laid back to back in a caller-owned buffer, in as few syscalls as the kernel allows.
//
// A producer serialises an update into one contiguous wire buffer: datagram
// i starts at i×segment and every datagram but the last is exactly segment
// bytes long (wire.Layout lays DATA and CONFIG out this way). Sender
// then hands the buffer to the kernel with one of three methods:
//
//   - GSO: sendmsg with a UDP_SEGMENT control message; the kernel cuts the
//     buffer into datagrams (up to 64 segments and 65507 bytes per call).
//   - Sendmmsg: one sendmmsg call for up to 1024 datagrams.
//   - Loop: one sendto per datagram through the net package; works everywhere.
//
// Auto probes GSO, then sendmmsg, and falls back to Loop: GSO was the
// fastest in every case measured, and by far for many fragments. One update
// of 1400-byte datagrams to a loopback socket, 2 vCPU AMD EPYC VM under
// load, median of 3 runs of
// go test -run '^$' -bench . -benchtime 3000x -count 3 ./udpsend:
//
//	fragments   loop      sendmmsg   gso
//	1           7.8 µs    8.1 µs     7.2 µs
//	3           21.7 µs   12.7 µs    6.7 µs
//	45          245 µs    163 µs     29 µs
//
// If GSO fails on a device (a segment above its MTU), the Sender switches
// to sendmmsg for good. Every method is allocation-free per call: the
// message headers, iovecs and control buffer are allocated once in New.
//
// A Sender is owned by one goroutine (the network thread).
package udpsend

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Method is how a Sender hands datagrams to the kernel.
type Method uint8

// The send methods.
const (
	Auto Method = iota
	GSO
	Sendmmsg
	Loop
)

var methodNames = [...]string{"auto", "gso", "sendmmsg", "loop"}

func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// ParseMethod parses "auto", "gso", "sendmmsg" or "loop".
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if n == s {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("unknown send method %q (want auto, gso, sendmmsg or loop)", s)
}

const (
	maxGSOSegments = 64    // UDP_MAX_SEGMENTS in the kernel
	maxGSOBytes    = 65507 // one GSO super-datagram is bounded like a datagram
	maxMmsg        = 1024  // UIO_MAXIOV
)

// Sender sends back-to-back datagrams to one destination at a time.
type Sender struct {
	conn   *net.UDPConn
	rc     syscall.RawConn
	method Method
	dst    netip.AddrPort

	// sockaddr of dst, in the socket's family.
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

// ErrNoDestination is returned by Send before SetDestination.
var ErrNoDestination = errors.New("udpsend: no destination")

// New returns a Sender on conn (IPv4 or IPv6, bound, not connected).
// With Auto it probes the kernel for GSO and sendmmsg on conn itself.
func New(conn *net.UDPConn, method Method) (*Sender, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	s := &Sender{conn: conn, rc: rc, method: method}
	s.ctrl = make([]byte, unix.CmsgSpace(2))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&s.ctrl[0]))
	h.Level = unix.SOL_UDP
	h.Type = unix.UDP_SEGMENT
	h.SetLen(unix.CmsgLen(2))
	s.mmsg = make([]unix.Mmsghdr, maxMmsg)
	s.iovs = make([]unix.Iovec, maxMmsg)
	switch method {
	case Auto:
		s.method = s.probe()
	case GSO:
		if !s.gsoSupported() {
			return nil, errors.New("udpsend: UDP GSO (UDP_SEGMENT) is not supported on this socket")
		}
	case Sendmmsg, Loop:
	default:
		return nil, fmt.Errorf("udpsend: unknown method %d", method)
	}
	s.writeFn = s.write
	return s, nil
}

// probe picks the best method this kernel offers on this socket.
func (s *Sender) probe() Method {
	if s.gsoSupported() {
		return GSO
	}
	// sendmmsg with zero messages succeeds where the syscall exists.
	var errno syscall.Errno
	_ = s.rc.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&s.mmsg[0])), 0, 0, 0, 0)
	})
	if errno == 0 {
		return Sendmmsg
	}
	return Loop
}

func (s *Sender) gsoSupported() bool {
	supported := false
	_ = s.rc.Control(func(fd uintptr) {
		_, err := unix.GetsockoptInt(int(fd), unix.SOL_UDP, unix.UDP_SEGMENT)
		supported = err == nil
	})
	return supported
}

// Method returns the method in use (never Auto).
func (s *Sender) Method() Method { return s.method }

// Destination returns the current destination.
func (s *Sender) Destination() netip.AddrPort { return s.dst }

// SetDestination sets where Send sends. An IPv4 destination on an IPv6
// socket is sent as an IPv4-mapped address.
func (s *Sender) SetDestination(dst netip.AddrPort) {
	s.dst = dst
	s.saLen = 0
	if !dst.IsValid() {
		return
	}
	local, _ := s.conn.LocalAddr().(*net.UDPAddr)
	ip := dst.Addr()
	if local != nil && local.IP.To4() == nil && ip.Is4() || ip.Is6() && !ip.Is4In6() {
		sa := (*unix.RawSockaddrInet6)(unsafe.Pointer(&s.sa[0]))
		*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ip.As16()}
		putPort(&sa.Port, dst.Port())
		s.saLen = unix.SizeofSockaddrInet6
		return
	}
	sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&s.sa[0]))
	*sa = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip.Unmap().As4()}
	putPort(&sa.Port, dst.Port())
	s.saLen = unix.SizeofSockaddrInet4
}

// putPort stores port in network byte order.
func putPort(p *uint16, port uint16) {
	b := (*[2]byte)(unsafe.Pointer(p))
	b[0] = byte(port >> 8)
	b[1] = byte(port)
}

// Send sends buf as datagrams of segment bytes each (the last may be
// shorter) to the destination, and returns how many datagrams the kernel
// took. A partial send returns the count so far and the error.
func (s *Sender) Send(buf []byte, segment int) (int, error) {
	if s.saLen == 0 {
		return 0, ErrNoDestination
	}
	if segment <= 0 || len(buf) == 0 {
		return 0, nil
	}
	total := (len(buf) + segment - 1) / segment
	switch s.method {
	case GSO:
		return s.sendGSO(buf, segment, total)
	case Sendmmsg:
		return s.sendMmsg(buf, segment, total)
	}
	return s.sendLoop(buf, segment, total)
}

func (s *Sender) sendLoop(buf []byte, segment, total int) (int, error) {
	for i := 0; i < total; i++ {
		end := min((i+1)*segment, len(buf))
		if _, err := s.conn.WriteToUDPAddrPort(buf[i*segment:end], s.dst); err != nil {
			return i, err
		}
	}
	return total, nil
}

func (s *Sender) sendGSO(buf []byte, segment, total int) (int, error) {
	perCall := min(maxGSOSegments, maxGSOBytes/segment)
	if perCall < 2 {
		return s.sendMmsg(buf, segment, total)
	}
	*(*uint16)(unsafe.Pointer(&s.ctrl[unix.CmsgLen(0)])) = uint16(segment)
	sent := 0
	for sent < total {
		n := min(perCall, total-sent)
		start := sent * segment
		end := min(start+n*segment, len(buf))
		s.iov.Base = &buf[start]
		s.iov.SetLen(end - start)
		s.msg = unix.Msghdr{Name: &s.sa[0], Namelen: s.saLen, Iov: &s.iov}
		s.msg.SetIovlen(1)
		if n > 1 {
			s.msg.Control = &s.ctrl[0]
			s.msg.SetControllen(len(s.ctrl))
		}
		s.nmsg = -1 // sendmsg
		if err := s.call(); err != nil {
			if sent == 0 && (err == unix.EINVAL || err == unix.EMSGSIZE || err == unix.EIO) {
				// The device cannot segment this size (MTU below the
				// segment, no checksum offload): use sendmmsg from now on.
				s.method = Sendmmsg
				return s.sendMmsg(buf, segment, total)
			}
			return sent, err
		}
		sent += n
	}
	return sent, nil
}

func (s *Sender) sendMmsg(buf []byte, segment, total int) (int, error) {
	sent := 0
	for sent < total {
		n := min(maxMmsg, total-sent)
		for k := 0; k < n; k++ {
			start := (sent + k) * segment
			end := min(start+segment, len(buf))
			s.iovs[k].Base = &buf[start]
			s.iovs[k].SetLen(end - start)
			m := &s.mmsg[k]
			m.Hdr = unix.Msghdr{Name: &s.sa[0], Namelen: s.saLen, Iov: &s.iovs[k]}
			m.Hdr.SetIovlen(1)
			m.Len = 0
		}
		s.nmsg = n
		if err := s.call(); err != nil {
			return sent, err
		}
		if s.nmsg <= 0 {
			return sent, syscall.EIO
		}
		sent += s.nmsg // the kernel may take fewer than asked
	}
	return sent, nil
}

// call runs the prepared sendmsg (nmsg < 0) or sendmmsg (nmsg messages)
// through the runtime poller, waiting for writability on EAGAIN.
func (s *Sender) call() error {
	s.callErr = nil
	if err := s.rc.Write(s.writeFn); err != nil {
		return err
	}
	return s.callErr
}

func (s *Sender) write(fd uintptr) bool {
	var r uintptr
	var errno syscall.Errno
	if s.nmsg < 0 {
		r, _, errno = unix.Syscall(unix.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
	} else {
		r, _, errno = unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&s.mmsg[0])), uintptr(s.nmsg), 0, 0, 0)
	}
	switch errno {
	case 0:
		if s.nmsg >= 0 {
			s.nmsg = int(r)
		}
		return true
	case unix.EAGAIN:
		return false
	case unix.EINTR:
		return s.write(fd)
	}
	s.callErr = errno
	return true
}
