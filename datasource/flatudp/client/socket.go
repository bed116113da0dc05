package client

import (
	"net"

	"github.com/streamerd/streamerd/datasource/flatudp/internal/mcast"
)

// ListenMulticast opens a UDP socket bound to group:port (so it receives
// that group's datagrams only, not unicast ones to the port), with
// SO_REUSEADDR so several receivers can share the port, and joins the IPv4
// group on iface: a local IPv4 address ("127.0.0.1"), an interface name
// ("lo"), or empty for the kernel's choice (the interface of the route to
// the group). A unicast receiver opens its socket with net.ListenUDP.
func ListenMulticast(group, iface string, port int) (*net.UDPConn, error) {
	return mcast.Listen(group, iface, port)
}
