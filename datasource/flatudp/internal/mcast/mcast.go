// Package mcast opens the multicast sockets of FlatUDP: a receiver's bound to its group, a sender's options.
package mcast

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
)

// Listen opens a UDP socket bound to group:port (so it receives that
// group's datagrams only, not unicast ones to the port), with SO_REUSEADDR
// so several receivers can share the port, and joins the IPv4 group on
// iface: a local IPv4 address ("127.0.0.1"), an interface name ("lo"), or
// empty for the kernel's choice (the interface of the route to the group).
func Listen(group, iface string, port int) (*net.UDPConn, error) {
	g, err := parseGroup(group)
	if err != nil {
		return nil, err
	}
	if err := checkPort(port); err != nil {
		return nil, err
	}
	ifc, err := resolveIface(iface)
	if err != nil {
		return nil, err
	}
	return listenGroup(g, port, ifc)
}

func parseGroup(group string) (netip.Addr, error) {
	g, err := netip.ParseAddr(group)
	if err != nil || !g.Is4() || !g.IsMulticast() {
		return netip.Addr{}, errors.New("flatudp/client: multicast group " + strconv.Quote(group) +
			" is not an IPv4 multicast address (224.0.0.0/4)")
	}
	return g, nil
}

func checkPort(port int) error {
	if port < 0 || port > 65535 {
		return errors.New("flatudp/client: port " + strconv.Itoa(port) + " is outside 0..65535")
	}
	return nil
}

// ifaceSpec is a resolved interface: an address, an index, or neither.
type ifaceSpec struct {
	addr  [4]byte
	index int
}

func resolveIface(iface string) (ifaceSpec, error) {
	if iface == "" {
		return ifaceSpec{}, nil
	}
	if a, err := netip.ParseAddr(iface); err == nil {
		if !a.Is4() {
			return ifaceSpec{}, errors.New("flatudp/client: interface address " + strconv.Quote(iface) + " is not IPv4")
		}
		return ifaceSpec{addr: a.As4()}, nil
	}
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return ifaceSpec{}, errors.New("flatudp/client: interface " + strconv.Quote(iface) +
			" is neither an IPv4 address nor an interface name: " + err.Error())
	}
	return ifaceSpec{index: ifi.Index}, nil
}
