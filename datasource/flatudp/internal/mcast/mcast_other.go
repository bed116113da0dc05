//go:build !linux

package mcast

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
)

var errNoMulticast = errors.New("flatudp/client: multicast is implemented on Linux only")

func listenGroup(netip.Addr, int, ifaceSpec) (*net.UDPConn, error) { return nil, errNoMulticast }

// SendControl is implemented on Linux only.
func SendControl(iface string, ttl int, loop bool) (func(network, address string, c syscall.RawConn) error, error) {
	return nil, errNoMulticast
}
