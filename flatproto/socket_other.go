//go:build !linux

package flatproto

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
)

var errNoMulticast = errors.New("flatproto: multicast is implemented on Linux only")

func listenGroup(netip.Addr, int, ifaceSpec) (*net.UDPConn, error) { return nil, errNoMulticast }

// MulticastSendControl is implemented on Linux only.
func MulticastSendControl(iface string, ttl int, loop bool) (func(network, address string, c syscall.RawConn) error, error) {
	return nil, errNoMulticast
}
