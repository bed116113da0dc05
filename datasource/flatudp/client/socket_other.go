//go:build !linux

package client

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
)

var errNoMulticast = errors.New("flatudp/client: multicast is implemented on Linux only")

func listenGroup(netip.Addr, int, ifaceSpec) (*net.UDPConn, error) { return nil, errNoMulticast }

// MulticastSendControl is implemented on Linux only.
func MulticastSendControl(iface string, ttl int, loop bool) (func(network, address string, c syscall.RawConn) error, error) {
	return nil, errNoMulticast
}
