package sendpath

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
)

// Sender sends the back-to-back datagrams of one update to one destination
// at a time, in as few system calls as the kernel allows. A Sender is
// owned by one goroutine (the network thread). Send is allocation-free:
// the message headers, iovecs and control buffer are allocated once in
// NewSender.
type Sender struct {
	conn   *net.UDPConn
	method SendMethod
	dst    netip.AddrPort
	k      kernel // the system's batched send calls
}

// ErrNoDestination is returned by Send before SetDestination.
var ErrNoDestination = errors.New("send path: no destination")

// NewSender returns a Sender on conn (IPv4 or IPv6, bound, not connected).
// With MethodAuto it probes the kernel for GSO and sendmmsg on conn
// itself; a method the system or socket lacks is an error that says so.
func NewSender(conn *net.UDPConn, method SendMethod) (*Sender, error) {
	s := &Sender{conn: conn, method: method}
	if err := s.k.init(conn); err != nil {
		return nil, err
	}
	switch method {
	case MethodAuto:
		s.method = s.k.probe()
	case MethodGSO:
		if !s.k.gsoSupported() {
			return nil, fmt.Errorf("send method gso: UDP GSO (UDP_SEGMENT) is not available on this socket (%s)", runtime.GOOS)
		}
	case MethodSendmmsg:
		if !s.k.mmsgSupported() {
			return nil, fmt.Errorf("send method sendmmsg: not available on this system (%s)", runtime.GOOS)
		}
	case MethodSendto:
	default:
		return nil, fmt.Errorf("unknown send method %d (want auto, gso, sendmmsg or sendto)", method)
	}
	return s, nil
}

// Method returns the method in use (never MethodAuto).
func (s *Sender) Method() SendMethod { return s.method }

// SetDestination sets where Send sends. An IPv4 destination on an IPv6
// socket is sent as an IPv4-mapped address.
func (s *Sender) SetDestination(dst netip.AddrPort) {
	s.dst = dst
	local, _ := s.conn.LocalAddr().(*net.UDPAddr)
	s.k.setDestination(dst, local != nil && local.IP.To4() == nil)
}

// Send sends buf as datagrams of segment bytes each (the last may be
// shorter) to the destination, and returns how many datagrams the kernel
// took. A partial send returns the count so far and the error.
func (s *Sender) Send(buf []byte, segment int) (int, error) {
	if !s.dst.IsValid() {
		return 0, ErrNoDestination
	}
	if segment <= 0 || len(buf) == 0 {
		return 0, nil
	}
	total := (len(buf) + segment - 1) / segment
	switch s.method {
	case MethodGSO:
		n, fellBack, err := s.k.sendGSO(buf, segment, total)
		if fellBack {
			// The device cannot segment this size (MTU below the segment,
			// no checksum offload): use sendmmsg from now on.
			s.method = MethodSendmmsg
		}
		return n, err
	case MethodSendmmsg:
		return s.k.sendMmsg(buf, segment, total)
	}
	return s.sendto(buf, segment, total)
}

func (s *Sender) sendto(buf []byte, segment, total int) (int, error) {
	for i := 0; i < total; i++ {
		end := min((i+1)*segment, len(buf))
		if _, err := s.conn.WriteToUDPAddrPort(buf[i*segment:end], s.dst); err != nil {
			return i, err
		}
	}
	return total, nil
}
