package mcast

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// listenGroup binds a socket to the group address itself. The net package
// would bind a multicast address as the wildcard, which also receives
// unicast datagrams and other groups' to the port.
func listenGroup(g netip.Addr, port int, ifc ifaceSpec) (*net.UDPConn, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.IPPROTO_UDP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	f := os.NewFile(uintptr(fd), "udp4:"+netip.AddrPortFrom(g, uint16(port)).String())
	defer f.Close() // FilePacketConn holds its own duplicate
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return nil, os.NewSyscallError("setsockopt SO_REUSEADDR", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: g.As4()}); err != nil {
		return nil, errors.New("flatudp/client: binding " + netip.AddrPortFrom(g, uint16(port)).String() + ": " + err.Error())
	}
	mreq := unix.IPMreqn{Multiaddr: g.As4(), Address: ifc.addr, Ifindex: int32(ifc.index)}
	if err := unix.SetsockoptIPMreqn(fd, unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP, &mreq); err != nil {
		return nil, errors.New("flatudp/client: joining " + g.String() + ": " + err.Error())
	}
	pc, err := net.FilePacketConn(f)
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}

// SendControl returns a net.Dialer or net.ListenConfig Control
// function that sets a sending socket's IP_MULTICAST_IF (iface as in
// Listen; empty leaves it), IP_MULTICAST_TTL (ttl, 0..255) and
// IP_MULTICAST_LOOP (loop): what a sender to a group sets (the FlatUDP
// producer does).
func SendControl(iface string, ttl int, loop bool) (func(network, address string, c syscall.RawConn) error, error) {
	if ttl < 0 || ttl > 255 {
		return nil, errors.New("flatudp/client: multicast TTL " + strconv.Itoa(ttl) + " is outside 0..255")
	}
	ifc, err := resolveIface(iface)
	if err != nil {
		return nil, err
	}
	lp := 0
	if loop {
		lp = 1
	}
	return func(_, _ string, c syscall.RawConn) error {
		var err error
		cerr := c.Control(func(fd uintptr) {
			s := int(fd)
			if ifc != (ifaceSpec{}) {
				mreq := unix.IPMreqn{Address: ifc.addr, Ifindex: int32(ifc.index)}
				if err = unix.SetsockoptIPMreqn(s, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, &mreq); err != nil {
					err = errors.New("flatudp/client: IP_MULTICAST_IF " + iface + ": " + err.Error())
					return
				}
			}
			if err = unix.SetsockoptInt(s, unix.IPPROTO_IP, unix.IP_MULTICAST_TTL, ttl); err != nil {
				return
			}
			err = unix.SetsockoptInt(s, unix.IPPROTO_IP, unix.IP_MULTICAST_LOOP, lp)
		})
		if cerr != nil {
			return cerr
		}
		return err
	}, nil
}
